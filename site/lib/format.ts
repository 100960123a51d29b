/** Number and delta formatting: one place, so every page says the same thing the same way. */
import type { Delta } from '../../harness/contract/site-data.ts';
import { MIN_SAMPLES, percentileColumn, sampleCountColumn } from '../../harness/contract/sufficiency.ts';

/** Counts as whole numbers; otherwise three significant digits below 100, whole numbers above; "–" when missing. */
export function formatNumber(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(2);
}

/** The arrow next to a metric's name: which way is better (↓ marks lower-is-better metrics). */
export function directionArrow(better: 'higher' | 'lower'): '↑' | '↓' {
  return better === 'higher' ? '↑' : '↓';
}

export function directionWords(better: 'higher' | 'lower'): string {
  return `${better} is better`;
}

export interface DeltaView {
  /** Arrow and signed percentage, e.g. "▼ −15.3%". */
  readonly text: string;
  /** The word that carries the meaning without colour: better, worse, or "no clear change". */
  readonly verdict: string;
  /** CSS class: colour only when the change is significant. */
  readonly className: 'delta-better' | 'delta-worse' | 'delta-unclear';
  /** Tooltip: both values, both versions, the test. */
  readonly title: string;
}

export function formatPercent(value: number): string {
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return `${sign}${Math.abs(value).toFixed(1)}%`;
}

/** What describeDelta reads of a change: a compiled delta, or a change the compare page tested between any two releases. */
export type DeltaFacts = Pick<Delta, 'change_pct' | 'verdict' | 'method' | 'p_value' | 'ci_low_pct' | 'ci_high_pct' | 'previous_runs' | 'runs' | 'previous_version' | 'version' | 'previous_value' | 'value'>;

export function describeDelta(delta: DeltaFacts, unit: string): DeltaView {
  const arrow = delta.change_pct > 0 ? '▲' : delta.change_pct < 0 ? '▼' : '■';
  const verdict = delta.verdict === 'unclear' ? 'no clear change' : delta.verdict;
  const test =
    delta.method === 'unknown-noise'
      ? 'noise unknown (no repeated runs yet)'
      : `p = ${delta.p_value === null ? 'n/a' : delta.p_value < 1e-4 ? '< 0.0001' : delta.p_value.toFixed(4)}, 95% CI ${formatPercent(delta.ci_low_pct ?? 0)} … ${formatPercent(delta.ci_high_pct ?? 0)} (${delta.method === 'welch' ? "Welch's t-test" : 'pooled noise band'}, runs ${delta.previous_runs}/${delta.runs})`;
  return {
    text: `${arrow} ${formatPercent(delta.change_pct)}`,
    verdict,
    className: delta.verdict === 'better' ? 'delta-better' : delta.verdict === 'worse' ? 'delta-worse' : 'delta-unclear',
    title: `${delta.previous_version}: ${formatNumber(delta.previous_value)} ${unit} → ${delta.version}: ${formatNumber(delta.value)} ${unit}; ${test}`,
  };
}

/** A 95% interval as text, "11.9–12.8"; null when either end is missing. */
export function formatInterval(lo: unknown, hi: unknown): string | null {
  if (typeof lo !== 'number' || typeof hi !== 'number' || !Number.isFinite(lo) || !Number.isFinite(hi)) return null;
  return `${formatNumber(lo)}–${formatNumber(hi)}`;
}

/** How a value's spread is shown next to it: its interval over repeats, or that it comes from one run. */
export interface Spread {
  readonly text: string;
  readonly single: boolean;
}

/**
 * The spread of `column` in a release row (columns `<column>__lo`, `<column>__hi` and `runs`);
 * null when there is nothing to say. Kept short: a fleet's home page shows thousands of them,
 * and the tables' captions say what the brackets are.
 */
export function spreadOf(row: Readonly<Record<string, unknown>>, column: string): Spread | null {
  const interval = formatInterval(row[`${column}__lo`], row[`${column}__hi`]);
  if (interval !== null) return { text: `(${interval})`, single: false };
  if (row.runs === 1 && typeof row[column] === 'number') return { text: '1 run', single: true };
  return null;
}

/** Control and invisible format characters (bidi overrides, zero-width marks, line and paragraph separators); tab and line feed are honest. */
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/**
 * Free text from a result (a host's OS, a failure message, a serve command, a Reproduce block) as
 * a page shows it: a character that would make the text display as something other than what it
 * is (U+202E turns "exe.txt" around) is shown as a visible ⟨U+202E⟩ instead. The one helper for
 * every page; identifiers never need it (validate refuses such characters in them).
 */
export function visibleText(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return text.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** A percentile shown as its sample size, and why (docs/metrics.md#sample-sufficiency). */
export interface SamplesView {
  /** "n = 8", or "n = 4–8" over a release's runs. */
  readonly text: string;
  readonly title: string;
}

const samplesTitle = (column: string) => {
  const parsed = percentileColumn(column)!;
  return `Too few samples for a ${parsed.stat}: it needs n ≥ ${MIN_SAMPLES[parsed.stat]} (below that it is the sample maximum). Never ranked, compared or judged against a limit.`;
};

/**
 * In place of a percentile its sample cannot support: a release row whose value compile withheld
 * (`<column>__samples_min`/`__samples_max` say the runs' samples), or a point row whose
 * `insufficient` list names the column (`<distribution>_n` says n); null where the value stands.
 */
export function samplesOf(row: Readonly<Record<string, unknown>>, column: string): SamplesView | null {
  if (percentileColumn(column) === null) return null;
  const [low, high] = [row[`${column}__samples_min`], row[`${column}__samples_max`]];
  if (row[column] === null && typeof high === 'number') {
    return { text: typeof low === 'number' && low !== high ? `n = ${low}–${high}` : `n = ${high}`, title: samplesTitle(column) };
  }
  const n = row[sampleCountColumn(column)!];
  if (typeof row.insufficient === 'string' && row.insufficient.split(',').includes(column) && (typeof n === 'number' || typeof n === 'string')) {
    return { text: `n = ${n}`, title: samplesTitle(column) };
  }
  return null;
}

/**
 * A scenario's methodology ends in its runs' effective lengths (harness/contract/methodology.ts):
 * "approximate" runs did not measure the workload as declared (the server counted their prompts
 * otherwise), so they form their own series and the pages label them.
 */
export function approximateLengths(methodology: unknown): boolean {
  return typeof methodology === 'string' && methodology.endsWith('.approximate');
}

export const APPROXIMATE_NOTE = 'Approximate lengths: the server counted these prompts at other lengths than they were built to (its own tokenizer, template or special tokens), so these runs did not measure the declared workload; they are ranked only among themselves, never beside exact runs.';
