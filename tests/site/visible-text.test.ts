/**
 * Free text from a result shows as what it is: every control and invisible format character
 * (bidi overrides, zero-width marks, ESC) becomes a visible ⟨U+…⟩; tab and line feed stay.
 * The strings are SYNTHETIC.
 */
import { describe, expect, it } from 'vitest';
import { visibleText } from '../../site/lib/format.ts';

describe('visibleText', () => {
  it('shows bidi overrides, isolates, zero-width and control characters visibly', () => {
    expect(visibleText('invoice\u202Etxt.exe')).toBe('invoice⟨U+202E⟩txt.exe');
    expect(visibleText('a\u2066b\u2069c\u200Bd\uFEFFe')).toBe('a⟨U+2066⟩b⟨U+2069⟩c⟨U+200B⟩d⟨U+FEFF⟩e');
    expect(visibleText('\u001b[31mred\u0007\u0000\r')).toBe('⟨U+001B⟩[31mred⟨U+0007⟩⟨U+0000⟩⟨U+000D⟩');
    expect(visibleText('line\u2028sep\u{E0041}tag')).toBe('line⟨U+2028⟩sep⟨U+E0041⟩tag');
  });

  it('leaves honest text alone: letters of any script, tab, line feed; null is empty', () => {
    expect(visibleText('Linux 6.1 — Ubuntu 24.04 «тест» 日本\tx\ny')).toBe('Linux 6.1 — Ubuntu 24.04 «тест» 日本\tx\ny');
    expect(visibleText(null)).toBe('');
    expect(visibleText(42)).toBe('42');
  });
});
