/**
 * The home page's configuration filter as pure functions: which configuration a page opens on,
 * which one a change of one field leads to, and the state in the URL. Shared by the prerendered
 * page and its script, so both agree on the default.
 */
export interface ConfigurationChoice {
  readonly id: string;
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly workload: string;
  readonly loads: readonly string[];
}

export const FILTER_FIELDS = ['model', 'precision', 'hardware', 'workload'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

export interface HomeState {
  readonly id: string;
  readonly load: string;
}

export const scenarioLabel = (s: Pick<ConfigurationChoice, FilterField>): string => `${s.model} · ${s.precision} · ${s.hardware} · ${s.workload}`;

/**
 * The configuration the page opens on: the one most engines were measured on, then the most
 * recently run (scenarios carry `engines` and `last_run_date`), then by name for a stable choice.
 */
export function defaultScenario<T extends { scenario_id: string; engines: readonly string[]; last_run_date: string; model: string; workload: string }>(all: readonly T[]): T | null {
  return [...all].sort((a, b) => b.engines.length - a.engines.length || b.last_run_date.localeCompare(a.last_run_date) || a.model.localeCompare(b.model) || a.workload.localeCompare(b.workload))[0] ?? null;
}

/**
 * The configuration that `wanted` (the selects' values) points to. All four fields match if
 * such a configuration exists; otherwise the field the reader just changed is kept and the
 * others follow, preferring to keep fields in filter order.
 */
export function pickConfiguration(all: readonly ConfigurationChoice[], wanted: Readonly<Record<FilterField, string>>, changed: FilterField | null): ConfigurationChoice | null {
  const score = (c: ConfigurationChoice) => FILTER_FIELDS.reduce((sum, field, i) => sum + (c[field] === wanted[field] ? 2 ** (FILTER_FIELDS.length - i) : 0), 0);
  const candidates = changed === null ? all : all.filter((c) => c[changed] === wanted[changed]);
  return [...candidates].sort((a, b) => score(b) - score(a))[0] ?? null;
}

/** Reads ?model=&precision=&hardware=&workload=&load=; unknown values fall back to `fallback`. */
export function parseHomeState(search: string, all: readonly ConfigurationChoice[], fallback: HomeState): HomeState {
  const params = new URLSearchParams(search);
  if (!FILTER_FIELDS.some((f) => params.has(f)) && !params.has('load')) return fallback;
  const base = all.find((c) => c.id === fallback.id);
  if (!base) return fallback;
  const wanted = Object.fromEntries(FILTER_FIELDS.map((f) => [f, params.get(f) ?? base[f]])) as Record<FilterField, string>;
  const given = FILTER_FIELDS.find((f) => params.has(f)) ?? null;
  const chosen = all.find((c) => FILTER_FIELDS.every((f) => c[f] === wanted[f])) ?? pickConfiguration(all, wanted, given) ?? base;
  const load = params.get('load');
  return { id: chosen.id, load: load !== null && chosen.loads.includes(load) ? load : (chosen.loads[chosen.loads.length - 1] ?? '') };
}

/** The URL query for a state; other parameters (`keep`) are carried over untouched. */
export function serializeHomeState(state: HomeState, all: readonly ConfigurationChoice[], keep = ''): string {
  const params = new URLSearchParams(keep);
  const chosen = all.find((c) => c.id === state.id);
  if (chosen) for (const f of FILTER_FIELDS) params.set(f, chosen[f]);
  params.set('load', state.load);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
