/**
 * The history chart's x axis: releases in release order, not the day each was first measured (four
 * releases measured on one day would stack in one column). Each engine's versions keep their
 * version order (the compiled sort key, store/version-order.ts); engines are interleaved by the day
 * each release was published, so the axis reads left to right as the releases came out. A release
 * the list gives no day for follows the release before it of its engine. Also what a methodology
 * change between two plotted releases of an engine is, in words. Pure functions, tested on their own.
 */

/** What a history row says of its release (every field but the names optional: data compiled before them still draws). */
export interface ReleaseFields {
  readonly engine: string;
  readonly engine_version: string;
  readonly engine_version_order?: unknown;
  readonly release_date?: unknown;
  readonly release_url?: unknown;
}

/** One release on the axis, at `index` (0, 1, …). */
export interface ReleaseSlot {
  readonly engine: string;
  readonly version: string;
  readonly index: number;
  /** The day it was published; null: unknown. */
  readonly date: string | null;
  /** Its release notes; null: unknown. */
  readonly url: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const byVersion = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
export const slotKey = (engine: string, version: string): string => JSON.stringify([engine, version]);

/** A release's day as the chart and its table say it. */
export const releaseDateLabel = (date: string | null): string => date ?? 'date unknown';

/** Every release of the rows once, in release order (see the module's comment). */
export function releaseSlots(rows: readonly ReleaseFields[]): ReleaseSlot[] {
  const byEngine = new Map<string, Map<string, { version: string; order: string | null; date: string | null; url: string | null }>>();
  for (const r of rows) {
    const versions = byEngine.get(r.engine) ?? new Map();
    const had = versions.get(r.engine_version);
    versions.set(r.engine_version, {
      version: r.engine_version,
      order: had?.order ?? text(r.engine_version_order),
      date: had?.date ?? text(r.release_date),
      url: had?.url ?? text(r.release_url),
    });
    byEngine.set(r.engine, versions);
  }
  // Each engine's queue in version order, each release with the day it sorts by: its own, else its predecessor's.
  const queues = [...byEngine.keys()].sort().map((engine) => {
    const list = [...byEngine.get(engine)!.values()].sort((a, b) => (a.order !== null && b.order !== null && a.order !== b.order ? (a.order < b.order ? -1 : 1) : byVersion(a.version, b.version)));
    let sortDay: string | null = null;
    return list.map((r) => ({ engine, ...r, sortDay: (sortDay = r.date ?? sortDay) }));
  });
  const slots: ReleaseSlot[] = [];
  // A merge of the queues by day: no day sorts first (its place is unknown), ties by engine name.
  for (;;) {
    let best: (typeof queues)[number] | undefined;
    for (const q of queues) {
      if (q.length === 0) continue;
      if (best === undefined || (q[0]!.sortDay ?? '') < (best[0]!.sortDay ?? '')) best = q;
    }
    if (best === undefined) return slots;
    const r = best.shift()!;
    slots.push({ engine: r.engine, version: r.version, index: slots.length, date: r.date, url: r.url });
  }
}

/** Methodology labels in the order they came: result schema, then metric generation (methodology.ts: s<schema>.m<generation>.<lengths>); then by name. */
export function compareMethodology(a: string, b: string): number {
  const pa = /^s(\d+)\.m(\d+)\./.exec(a);
  const pb = /^s(\d+)\.m(\d+)\./.exec(b);
  if (pa && pb) {
    const d = Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

/** What changed between two methodology labels, in words: "s1.m1.exact → s2.m1.exact (result schema 1 → 2)". */
export function describeMethodologyChange(from: string, to: string): string {
  const pa = /^s(\d+)\.m(\d+)\.(.+)$/.exec(from);
  const pb = /^s(\d+)\.m(\d+)\.(.+)$/.exec(to);
  const parts: string[] = [];
  if (pa && pb) {
    if (pa[1] !== pb[1]) parts.push(`result schema ${pa[1]} → ${pb[1]}`);
    if (pa[2] !== pb[2]) parts.push(`metric definitions generation ${pa[2]} → ${pb[2]}`);
    if (pa[3] !== pb[3]) parts.push(`prompt lengths ${pa[3]} → ${pb[3]}`);
  }
  return `${from} → ${to}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** Where an engine's plotted releases change methodology: between `from` and `to` (the same release when it was measured under both). */
export interface MethodologyChange {
  readonly engine: string;
  readonly from: { readonly version: string; readonly methodology: string; readonly index: number };
  readonly to: { readonly version: string; readonly methodology: string; readonly index: number };
  readonly text: string;
}

/** Each change of methodology between consecutive plotted releases of an engine (in release order; a release measured under two, older label first). */
export function methodologyChanges(rows: ReadonlyArray<{ readonly engine: string; readonly version: string; readonly methodology: string; readonly index: number }>): MethodologyChange[] {
  const changes: MethodologyChange[] = [];
  for (const engine of [...new Set(rows.map((r) => r.engine))].sort()) {
    const series = rows.filter((r) => r.engine === engine).sort((a, b) => a.index - b.index || compareMethodology(a.methodology, b.methodology));
    for (let i = 1; i < series.length; i++) {
      const [a, b] = [series[i - 1]!, series[i]!];
      if (a.methodology === b.methodology) continue;
      const where = a.version === b.version ? `at ${engine} ${b.version} (measured under both)` : `between ${engine} ${a.version} and ${b.version}`;
      changes.push({
        engine,
        from: { version: a.version, methodology: a.methodology, index: a.index },
        to: { version: b.version, methodology: b.methodology, index: b.index },
        text: `Methodology changed ${where}: ${describeMethodologyChange(a.methodology, b.methodology)}; values on either side are not compared.`,
      });
    }
  }
  return changes;
}
