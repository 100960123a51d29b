/**
 * What one `servebench alert` issue is about: one engine release on one configuration (a scenario:
 * model × precision × hardware × workload × methodology, all its load points together), and every
 * metric that regressed there at any load point. The state (which cells regress, since
 * which night, which recovered, whether a newer release fixed it) lives in the issue's own body, in
 * a hidden marker, so each night continues from what the issue says and nothing else is stored.
 *
 * A night is the date of the newest run behind the numbers (run ids start with their UTC time), not
 * the clock: running alert twice on the same report must render the same text.
 */
import { z } from 'zod';
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import { DeltaSchema } from '../../contract/site-data.ts';
import type { AlertComparison, AlertRegression } from '../regressions/report.ts';
import { groupKey, scenarioIdentity, scenarioOf, type ScenarioRef } from '../regressions/keys.ts';

export { groupKey, scenarioIdentity, scenarioOf, type ScenarioRef };
import { PairedNoteSchema, type PairedNote } from './paired-notes.ts';

/** One metric at one load point as regress compared it, links by run id (GroupState.runs). */
export interface Measured {
  readonly metric: string;
  readonly load: string;
  readonly better: 'higher' | 'lower';
  readonly previous_version: string;
  readonly version: string;
  readonly previous_value: number;
  readonly value: number;
  readonly change_pct: number;
  readonly ci_low_pct: number | null;
  readonly ci_high_pct: number | null;
  readonly p_value: number | null;
  readonly method: 'welch' | 'noise-band' | 'unknown-noise';
  readonly previous_runs: number;
  readonly runs: number;
  readonly previous_run_id: string;
  readonly run_id: string;
}

/** A cell that regresses, and the night it was first reported. */
export interface ActiveCell extends Measured {
  readonly since: string;
}

/** A cell that regressed before and no longer does: its last regressed numbers, and what regress says now (null: not in the report). */
export interface RecoveredCell {
  readonly metric: string;
  readonly load: string;
  readonly was: Measured;
  readonly night: string;
  readonly now: Measured | null;
}

/** A newer release of the engine measured on the configuration, against the regressed cells' baseline (the release before the regression). */
export interface NewerRelease {
  readonly version: string;
  readonly night: string;
  readonly cells: ReadonlyArray<{
    readonly metric: string;
    readonly load: string;
    /** The newer release against the one just before it (regress's comparison). */
    readonly now: Measured;
    /** The newer release's value against the baseline, in percent, positive = worse. */
    readonly vs_baseline_pct: number;
    readonly fixed: boolean;
  }>;
}

export interface Closure {
  readonly night: string;
  /** recovered: the same release no longer regresses; fixed-in-newer: a newer release is back within the threshold. */
  readonly reason: 'recovered' | 'fixed-in-newer';
  readonly version: string;
}

export interface GroupState {
  readonly v: 1;
  readonly key: string;
  readonly engine: string;
  readonly version: string;
  readonly previous_version: string;
  readonly scenario: ScenarioRef;
  readonly threshold_pct: number;
  /** The night of the newest numbers in this state. */
  readonly night: string;
  readonly cells: readonly ActiveCell[];
  readonly recovered: readonly RecoveredCell[];
  readonly newer: NewerRelease | null;
  /** Set when servebench closed the issue; an open issue with it set was reopened by a maintainer. */
  readonly closed: Closure | null;
  /** Run id → link (a run page or the raw result file), for every run the state names. */
  readonly runs: Readonly<Record<string, string | null>>;
  /** The paired confirmation of regressed cells (`servebench confirm`), where one was given (confirmed.ts). */
  readonly paired?: readonly PairedNote[];
}

type Row = AlertRegression | AlertComparison;

export function measuredOf(r: Row): Measured {
  return {
    metric: r.metric,
    load: r.load,
    better: r.better,
    previous_version: r.previous_version,
    version: r.version,
    previous_value: r.previous_value,
    value: r.value,
    change_pct: r.change_pct,
    ci_low_pct: r.ci_low_pct,
    ci_high_pct: r.ci_high_pct,
    p_value: r.p_value,
    method: r.method,
    previous_runs: r.previous_runs,
    runs: r.runs,
    previous_run_id: r.previous_run_id,
    run_id: r.run_id,
  };
}

export const cellId = (c: { metric: string; load: string }): string => `${c.metric}\u0000${c.load}`;

/** "20260210T030000Z-4e5f6a7b" → "2026-02-10"; another id is its own night. */
export function nightOf(runId: string): string {
  const match = /^(\d{4})(\d{2})(\d{2})T\d{6}/.exec(runId);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : runId;
}

/** The newest night among rows (run ids sort by time). */
export function newestNight(rows: ReadonlyArray<{ run_id: string }>, fallback: string): string {
  const nights = rows.map((r) => nightOf(r.run_id)).sort();
  return nights.at(-1) ?? fallback;
}

const METRIC_ORDER = new Map(HEADLINE_METRICS.map((m, i) => [m.column, i]));

/** Load points in their natural order: concurrency and rates by number, then the rest by name. */
function loadRank(load: string): [number, number, string] {
  const closed = /^c=(\d+)$/.exec(load);
  if (closed) return [0, Number(closed[1]), load];
  const rate = /^rate=([\d.]+|inf)/.exec(load);
  if (rate) return [1, rate[1] === 'inf' ? Number.POSITIVE_INFINITY : Number(rate[1]), load];
  return [2, 0, load];
}

export function compareCells(a: { metric: string; load: string }, b: { metric: string; load: string }): number {
  const [ka, na, sa] = loadRank(a.load);
  const [kb, nb, sb] = loadRank(b.load);
  if (ka !== kb) return ka - kb;
  if (na !== nb) return na - nb;
  if (sa !== sb) return sa < sb ? -1 : 1;
  const ma = METRIC_ORDER.get(a.metric) ?? Number.MAX_SAFE_INTEGER;
  const mb = METRIC_ORDER.get(b.metric) ?? Number.MAX_SAFE_INTEGER;
  return ma !== mb ? ma - mb : a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0;
}

/** Tonight's regressions of one engine release on one configuration. */
export interface RegressionGroup {
  readonly key: string;
  readonly engine: string;
  readonly version: string;
  /** The release compared with (the most common one; rows name their own). */
  readonly previous_version: string;
  readonly scenario: ScenarioRef;
  readonly night: string;
  readonly rows: readonly AlertRegression[];
}

/** The report's rows, one group per engine release and configuration, in the report's order. */
export function groupRegressions(regressions: readonly AlertRegression[]): RegressionGroup[] {
  const byKey = new Map<string, AlertRegression[]>();
  for (const r of regressions) {
    const key = groupKey(r.engine, r.version, scenarioOf(r));
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  return [...byKey].map(([key, rows]) => {
    const first = rows[0]!;
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.previous_version, (counts.get(r.previous_version) ?? 0) + 1);
    const previous = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    return { key, engine: first.engine, version: first.version, previous_version: previous, scenario: scenarioOf(first), night: newestNight(rows, 'unknown'), rows: [...rows].sort(compareCells) };
  });
}

/** How much worse `value` is than `baseline`, in percent (negative: better); null without a baseline. */
export function worsePct(value: number, baseline: number, better: 'higher' | 'lower'): number | null {
  if (baseline === 0 || !Number.isFinite(baseline) || !Number.isFinite(value)) return null;
  const pct = ((value - baseline) / Math.abs(baseline)) * 100;
  return better === 'higher' ? -pct : pct;
}

function linksOf(rows: readonly Row[]): Record<string, string | null> {
  const runs: Record<string, string | null> = {};
  for (const r of rows) {
    runs[r.previous_run_id] ??= r.previous_url;
    runs[r.run_id] ??= r.url;
  }
  return runs;
}

/** Keeps only the links the state still names (an old run drops out once no cell shows it). */
function pruneRuns(state: Omit<GroupState, 'runs'>, runs: Record<string, string | null>): Record<string, string | null> {
  const named = new Set<string>();
  const add = (m: Measured | null) => {
    if (m) named.add(m.previous_run_id).add(m.run_id);
  };
  state.cells.forEach(add);
  for (const r of state.recovered) {
    add(r.was);
    add(r.now);
  }
  for (const c of state.newer?.cells ?? []) add(c.now);
  return Object.fromEntries(Object.entries(runs).filter(([id]) => named.has(id)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** What changed since the state the issue held, one entry per cell (or per newer release). */
export type Change =
  | { readonly kind: 'new' | 'again'; readonly cell: Measured }
  | { readonly kind: 'recovered'; readonly cell: RecoveredCell }
  | { readonly kind: 'moved'; readonly before: Measured; readonly cell: Measured }
  | { readonly kind: 'newer'; readonly newer: NewerRelease }
  | { readonly kind: 'unreadable' };

/** A move of the change by this many percentage points is worth a comment; run counts and p-values move every night and are not. */
export const NOTABLE_CHANGE_POINTS = 1;

export interface Merged {
  readonly state: GroupState;
  readonly changes: readonly Change[];
  /** No cell regresses any more: the issue is to be closed (state.closed says why). */
  readonly fixed: boolean;
}

/**
 * The first state of a group (a new issue), or the state an issue held carried forward by tonight's
 * report. `rows` are tonight's regressions of the group (possibly none); `comparisons` the report's
 * comparisons of the engine on the configuration (null: the report lists none, so only the rows say
 * what was measured: a configuration with any row was measured at all its load points, as one run
 * measures every load point of its scenario).
 */
export function mergeState(
  old: GroupState | null,
  group: { key: string; engine: string; version: string; previous_version: string; scenario: ScenarioRef },
  rows: readonly AlertRegression[],
  comparisons: readonly AlertComparison[] | null,
  thresholdPct: number,
): Merged {
  const changes: Change[] = [];
  if (old === null && rows.length === 0) throw new Error('internal: a group without an issue and without rows');
  const tonight = new Map(rows.map((r) => [cellId(r), r]));
  const sameRelease = (comparisons ?? []).filter((c) => c.version === group.version);
  const compared = new Map(sameRelease.map((c) => [cellId(c), c]));
  const night = newestNight([...rows, ...sameRelease], old?.night ?? 'unknown');
  const oldCells = new Map((old?.cells ?? []).map((c) => [cellId(c), c]));
  const oldRecovered = new Map((old?.recovered ?? []).map((c) => [cellId(c), c]));
  /** Whether tonight's report measured a cell of this release: its comparison, else (rows only) any row of the group. */
  const measured = (id: string) => (comparisons !== null ? compared.has(id) : rows.length > 0);

  const cells: ActiveCell[] = [];
  for (const r of rows) {
    const id = cellId(r);
    const before = oldCells.get(id);
    const cell = measuredOf(r);
    if (before === undefined) {
      if (old !== null) changes.push({ kind: oldRecovered.has(id) ? 'again' : 'new', cell });
      cells.push({ ...cell, since: night });
    } else {
      if (Math.abs(before.change_pct - cell.change_pct) >= NOTABLE_CHANGE_POINTS) changes.push({ kind: 'moved', before, cell });
      cells.push({ ...cell, since: before.since });
    }
  }
  const recovered: RecoveredCell[] = [];
  for (const before of old?.cells ?? []) {
    const id = cellId(before);
    if (tonight.has(id)) continue;
    if (!measured(id)) {
      cells.push(before); // not measured tonight: it stands as it was
      continue;
    }
    const now = compared.get(id);
    const cell: RecoveredCell = { metric: before.metric, load: before.load, was: stripSince(before), night, now: now === undefined ? null : measuredOf(now) };
    recovered.push(cell);
    changes.push({ kind: 'recovered', cell });
  }
  for (const r of old?.recovered ?? []) if (!tonight.has(cellId(r)) && !recovered.some((c) => cellId(c) === cellId(r))) recovered.push(r);

  // A newer release measured on the configuration: is each regressed cell back within the threshold of its baseline?
  let newer: NewerRelease | null = old?.newer ?? null;
  const others = rows.length > 0 ? [] : (comparisons ?? []).filter((c) => c.version !== group.version);
  if (others.length > 0) {
    const newest = newestNight(others, night);
    const version = [...others].sort((a, b) => (a.run_id < b.run_id ? -1 : 1)).at(-1)!.version;
    const ofNewest = new Map(others.filter((c) => c.version === version).map((c) => [cellId(c), c]));
    const checked: Array<NewerRelease['cells'][number]> = [];
    for (const cell of cells) {
      const now = ofNewest.get(cellId(cell));
      if (now === undefined) continue;
      const vs = worsePct(now.value, cell.previous_value, cell.better);
      if (vs === null) continue;
      checked.push({ metric: cell.metric, load: cell.load, now: measuredOf(now), vs_baseline_pct: vs, fixed: vs < thresholdPct });
    }
    if (checked.length > 0) {
      const fresh: NewerRelease = { version, night: newest, cells: checked };
      if (old?.newer?.version !== version) changes.push({ kind: 'newer', newer: fresh });
      newer = fresh;
    }
  } else if (rows.length > 0) {
    newer = null; // the release is the newest again (or still): what a newer one showed no longer applies
  }

  const runs = { ...(old?.runs ?? {}), ...linksOf(rows), ...linksOf(comparisons ?? []) };
  const fixedInNewer = newer !== null && cells.length > 0 && cells.every((c) => newer!.cells.some((n) => cellId(n) === cellId(c) && n.fixed));
  const fixed = cells.length === 0 || fixedInNewer;
  const wasClosed = old?.closed ?? null;
  const closed: Closure | null = rows.length > 0 ? null : fixed ? (wasClosed ?? (cells.length === 0 ? { night, reason: 'recovered', version: group.version } : { night: newer!.night, reason: 'fixed-in-newer', version: newer!.version })) : wasClosed;
  cells.sort(compareCells);
  recovered.sort(compareCells);
  const base = {
    v: 1 as const,
    key: group.key,
    engine: group.engine,
    version: group.version,
    previous_version: rows.length > 0 ? group.previous_version : (old?.previous_version ?? group.previous_version),
    scenario: rows.length > 0 ? group.scenario : (old?.scenario ?? group.scenario),
    threshold_pct: thresholdPct,
    // The night of this release's newest numbers (a newer release's night is its own).
    night,
    cells,
    recovered,
    newer,
    closed,
  };
  return { state: { ...base, runs: pruneRuns(base, runs) }, changes, fixed };
}

function stripSince({ since: _, ...measured }: ActiveCell): Measured {
  return measured;
}

/** One measured comparison in the state: the delta contract's fields (unknown keys dropped, not refused). */
const measuredSchema = z.object(
  DeltaSchema.pick({ metric: true, load: true, better: true, previous_version: true, version: true, previous_value: true, value: true, change_pct: true, ci_low_pct: true, ci_high_pct: true, p_value: true, method: true, previous_runs: true, runs: true, previous_run_id: true, run_id: true }).shape,
);

const stateSchema = z.object({
  v: z.literal(1),
  key: z.string().regex(/^[0-9a-f]{16}$/),
  engine: z.string(),
  version: z.string(),
  previous_version: z.string(),
  scenario: z.object({ scenario_id: z.string(), model: z.string(), precision: z.string(), hardware: z.string(), workload: z.string(), methodology: z.string() }),
  threshold_pct: z.number(),
  night: z.string(),
  cells: z.array(measuredSchema.extend({ since: z.string() })),
  recovered: z.array(z.object({ metric: z.string(), load: z.string(), was: measuredSchema, night: z.string(), now: measuredSchema.nullable() })),
  newer: z.object({ version: z.string(), night: z.string(), cells: z.array(z.object({ metric: z.string(), load: z.string(), now: measuredSchema, vs_baseline_pct: z.number(), fixed: z.boolean() })) }).nullable(),
  closed: z.object({ night: z.string(), reason: z.enum(['recovered', 'fixed-in-newer']), version: z.string() }).nullable(),
  runs: z.record(z.string(), z.string().nullable()),
  paired: z.array(PairedNoteSchema).optional(),
});

/** A state read back from a body (JSON.parse'd), or null when it is not one (edited beyond reading, another version). */
export function parseState(json: unknown): GroupState | null {
  const parsed = stateSchema.safeParse(json);
  return parsed.success ? (parsed.data as GroupState) : null;
}
