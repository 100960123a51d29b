/**
 * A view's state lives in the URL, so a shared link reproduces it. Only known keys and values
 * are read back (strict allow-lists), whatever the link says.
 */
export interface ViewState {
  /** The load point shown, e.g. "c=8". */
  load: string | null;
  /** Sort column and direction. */
  sort: string | null;
  dir: 'asc' | 'desc';
  /** SLA limits by metric column, e.g. { ttft_ms_p99: 2000 }. */
  sla: Record<string, number>;
  /** The metric the history chart shows, e.g. "ttft_ms_p99"; null: the page's default. */
  metric: string | null;
}

export interface Allowed {
  readonly loads: readonly string[];
  readonly columns: readonly string[];
  readonly slaMetrics: readonly string[];
  /** The history chart's metrics. */
  readonly metrics: readonly string[];
}

export function parseViewState(search: string, allowed: Allowed): ViewState {
  const params = new URLSearchParams(search);
  const load = params.get('load');
  const sort = params.get('sort');
  const metric = params.get('metric');
  const sla: Record<string, number> = {};
  for (const column of allowed.slaMetrics) {
    const value = Number(params.get(`sla.${column}`));
    if (params.has(`sla.${column}`) && Number.isFinite(value) && value > 0) sla[column] = value;
  }
  return {
    load: load !== null && allowed.loads.includes(load) ? load : null,
    sort: sort !== null && allowed.columns.includes(sort) ? sort : null,
    dir: params.get('dir') === 'asc' ? 'asc' : 'desc',
    sla,
    metric: metric !== null && allowed.metrics.includes(metric) ? metric : null,
  };
}

export function serializeViewState(state: ViewState): string {
  const params = new URLSearchParams();
  if (state.load !== null) params.set('load', state.load);
  if (state.sort !== null) {
    params.set('sort', state.sort);
    params.set('dir', state.dir);
  }
  if (state.metric !== null) params.set('metric', state.metric);
  for (const [column, value] of Object.entries(state.sla).sort(([a], [b]) => a.localeCompare(b))) params.set(`sla.${column}`, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
