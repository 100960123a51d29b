/**
 * The figures the self-benchmark gate watches, read out of the JSON each bench writes. A figure
 * is one quantity at one scale (`compile@2000 ingest_s`), with the direction that is better and
 * the samples one file holds of it: a bench that repeats a measure inside one run (compile's three
 * incremental compiles, site's runs) gives several, the others one. Only figures measured on the
 * same kind of machine are compared (machineKey): a CI runner is not a laptop. Within a kind,
 * instances differ in speed; bench:machine's reference figures say by how much (speedScaling).
 */

export type Better = 'lower' | 'higher';

export interface FigureSample {
  /** `<bench>@<scale> <quantity>`: stable across runs at the same scale. */
  readonly figure: string;
  readonly unit: string;
  readonly better: Better;
  readonly values: readonly number[];
}

export interface BenchDocument {
  readonly bench: string;
  /** CPU count, CPU model and Node major: what must match for two figures to be compared. */
  readonly machineKey: string;
  readonly figures: readonly FigureSample[];
}

type Json = Record<string, unknown>;

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null);
const obj = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function figure(name: string, unit: string, better: Better, values: ReadonlyArray<number | null>): FigureSample[] {
  const kept = values.filter((v): v is number => v !== null);
  return kept.length > 0 ? [{ figure: name, unit, better, values: kept }] : [];
}

/** The figures of bench:machine: fixed work that measures the machine, not servebench. */
export const MACHINE_REFERENCE_PREFIX = 'machine ';

export function isMachineReference(figure: string): boolean {
  return figure.startsWith(MACHINE_REFERENCE_PREFIX);
}

/**
 * How a figure moves with the machine's speed: a time grows with it, a rate shrinks with it; bytes,
 * memory and ratios to a reference client measured beside it do not move.
 */
export function speedScaling(unit: string): 'time' | 'rate' | null {
  if (unit === 's' || unit === 'ms' || unit === 'ns') return 'time';
  if (unit === 'events/s') return 'rate';
  return null;
}

function machineFigures(doc: Json): FigureSample[] {
  const reference = obj(doc['reference']);
  return [
    ...figure(`${MACHINE_REFERENCE_PREFIX}javascript_reference_ms`, 'ms', 'lower', arr(reference['javascript_ms']).map(num)),
    ...figure(`${MACHINE_REFERENCE_PREFIX}duckdb_reference_ms`, 'ms', 'lower', arr(reference['duckdb_ms']).map(num)),
  ];
}

function machineKeyOf(machine: Json, node: unknown): string {
  const model = String(machine['cpu_model'] ?? machine['cpu'] ?? 'unknown cpu');
  const major = /^v?(\d+)/.exec(String(node ?? machine['node'] ?? ''))?.[1] ?? '?';
  return `${String(machine['cpus'] ?? '?')} × ${model} · node ${major}`;
}

function compileFigures(doc: Json): FigureSample[] {
  return arr(doc['results']).flatMap((raw) => {
    const r = obj(raw);
    const at = `compile@${String(r['files'])}`;
    const cold = obj(r['cold']);
    const incremental = arr(obj(r['incremental_one_new_file'])['runs']).map(obj);
    return [
      ...figure(`${at} cold_s`, 's', 'lower', [num(cold['seconds'])]),
      ...figure(`${at} ingest_s`, 's', 'lower', [num(obj(cold['phases'])['ingest'])]),
      ...figure(`${at} derive_s`, 's', 'lower', [num(obj(cold['phases'])['derive'])]),
      ...figure(`${at} parquet_s`, 's', 'lower', [num(obj(cold['phases'])['parquet'])]),
      ...figure(`${at} site_s`, 's', 'lower', [num(obj(cold['phases'])['site'])]),
      ...figure(`${at} peak_rss_mb`, 'MB', 'lower', [num(cold['max_rss_mb'])]),
      ...figure(`${at} incremental_s`, 's', 'lower', incremental.map((run) => num(run['seconds']))),
    ];
  });
}

function clientFigures(doc: Json): FigureSample[] {
  const decode = obj(doc['decode']);
  return [
    ...figure('client decode_ns_per_event (1 per read)', 'ns', 'lower', [num(obj(decode['one_event_per_read'])['ns_per_event'])]),
    ...figure('client decode_ns_per_event (16 per read)', 'ns', 'lower', [num(obj(decode['sixteen_events_per_read'])['ns_per_event'])]),
    ...arr(doc['ceiling']).flatMap((raw) => {
      const p = obj(raw);
      return figure(`client ceiling c=${String(p['concurrency'])} events_per_s`, 'events/s', 'higher', [num(p['content_events_per_s'])]);
    }),
    // The worst concurrency's ratio per reference transport (bench/lib/minimal-client.ts).
    ...Object.entries(obj(obj(doc['summary'])['ratio_to_minimal_client'])).flatMap(([transport, ratio]) => figure(`client CPU per event, minimal client (${transport}) over servebench`, '×', 'higher', [num(ratio)])),
  ];
}

function siteFigures(doc: Json): FigureSample[] {
  const at = `site@${String(doc['result_files'])}`;
  // Each time is the largest of what the page, the click handler and the test saw (bench/site.ts).
  const slowest = (...values: unknown[]) => num(Math.max(...values.map((v) => (typeof v === 'number' ? v : 0))));
  const runs = arr(doc['runs']).map(obj);
  return [
    ...figure(`${at} first_answer_ms`, 'ms', 'lower', runs.map((r) => { const f = obj(r['first_answer']); return slowest(f['page_ms'], f['click_to_table_ms'], f['test_side_ms']); })),
    ...figure(`${at} repeat_answer_worst_ms`, 'ms', 'lower', runs.map((r) => { const a = obj(r['repeat_answers']); return slowest(...arr(a['page_ms']), ...arr(a['click_to_table_ms']), ...arr(a['test_side_ms'])); })),
    ...figure(`${at} page_load_ms`, 'ms', 'lower', runs.map((r) => num(r['page_load_ms']))),
    ...figure(`${at} transferred_bytes`, 'bytes', 'lower', [num(obj(doc['transferred'])['total_bytes'])]),
    ...figure(`${at} initial_js_gzip_max_bytes`, 'bytes', 'lower', [num(doc['initial_js_gzip_max_bytes'])]),
  ];
}

/** The figures of one bench JSON; null for a file that is not one the gate knows. */
export function readBenchDocument(doc: unknown): BenchDocument | null {
  const d = obj(doc);
  const bench = String(d['bench'] ?? d['benchmark'] ?? '');
  const machine = obj(d['machine']);
  switch (bench) {
    case 'compile':
      // compile's documents before 2026-12-03 name their machine by cpus and node only.
      return { bench, machineKey: machineKeyOf({ ...machine, cpus: machine['cpus'] ?? d['cpus'] }, d['node']), figures: compileFigures(d) };
    case 'client':
      return { bench, machineKey: machineKeyOf(machine, machine['node']), figures: clientFigures(d) };
    case 'machine':
      return { bench, machineKey: machineKeyOf(machine, machine['node']), figures: machineFigures(d) };
    case 'site':
      return { bench, machineKey: machineKeyOf(machine, d['node']), figures: siteFigures(d) };
    default:
      return null;
  }
}
