/**
 * The charts' view state in the URL, next to whatever else the page keeps there (?load=, ?sort=,
 * ?metric=, ?sla.*=, …), which is never touched:
 * - `hide`, repeated: an engine (`hide=vllm`) or one version of it (`hide=vllm:1.1.0`) left out of
 *   every chart of the page;
 * - `scale=log`: the charts that offer it use log scales.
 * Only tokens the page knows are read back (an allow-list), whatever the link says.
 */
export interface ChartState {
  readonly hidden: ReadonlySet<string>;
  readonly log: boolean;
}

/** The `hide` token of an engine, or of one version of it. */
export const hideToken = (engine: string, version?: string): string => (version === undefined ? engine : `${engine}:${version}`);

export function isHidden(hidden: ReadonlySet<string>, engine: string, version?: string): boolean {
  return hidden.has(hideToken(engine)) || (version !== undefined && hidden.has(hideToken(engine, version)));
}

export function parseChartState(search: string, known: ReadonlySet<string>): ChartState {
  const params = new URLSearchParams(search);
  return { hidden: new Set(params.getAll('hide').filter((t) => known.has(t))), log: params.get('scale') === 'log' };
}

/** `search` with the chart state replaced and every other parameter kept, in its order. */
export function withChartState(search: string, state: ChartState): string {
  const params = new URLSearchParams(search);
  params.delete('hide');
  params.delete('scale');
  for (const token of [...state.hidden].sort()) params.append('hide', token);
  if (state.log) params.set('scale', 'log');
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The state with one token shown (`show`) or hidden. */
export function toggled(state: ChartState, token: string, show: boolean): ChartState {
  const hidden = new Set(state.hidden);
  if (show) hidden.delete(token);
  else hidden.add(token);
  return { ...state, hidden };
}
