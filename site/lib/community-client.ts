/**
 * The community filter on a page: every `input[data-community-toggle]` checkbox shows or hides
 * the `[data-community]` blocks (prerendered, hidden by default) and keeps `?community=1` in the
 * URL, leaving the page's other parameters alone.
 */
import { parseCommunity, withCommunity } from './community-state.ts';

export function enhanceCommunityFilter(doc: Document, win: Window): void {
  const toggles = [...doc.querySelectorAll<HTMLInputElement>('input[data-community-toggle]')];
  const apply = (on: boolean, push: boolean) => {
    for (const toggle of toggles) toggle.checked = on;
    for (const block of doc.querySelectorAll<HTMLElement>('[data-community]')) block.hidden = !on;
    if (push) win.history.replaceState(null, '', `${win.location.pathname}${withCommunity(win.location.search, on)}${win.location.hash}`);
  };
  for (const toggle of toggles) {
    toggle.disabled = false;
    toggle.addEventListener('change', () => apply(toggle.checked, true));
  }
  apply(parseCommunity(win.location.search), false);
}
