/**
 * The scenario page's interactions, on top of tables that are complete without JavaScript:
 * one load point at a time (in the URL), sort by any column (in the URL), CSV export, the SLA
 * filter and its marks on the Pareto chart (limits in the URL), the history chart's metric (in
 * the URL).
 */
import { leaderboardCsv } from './csv.ts';
import type { AsyncDuckDBConnection } from '@duckdb/duckdb-wasm';
import { pointsDatabase } from './duckdb-client.ts';
import { formatNumber } from './format.ts';
import { markPareto, pointMediansSql, type Limits, type PointMedians } from './pareto-sla.ts';
import { answerSla, describeClosest } from './sla-answer.ts';
import { decodeSlaPoints, type SlaPoint } from './sla-points.ts';
import { releasesSql, SLA_METRICS, slaParameters, slaSql, type SlaRow } from './sla-query.ts';
import { parseViewState, serializeViewState, type ViewState } from './url-state.ts';

/** The page's SLA points (sla-points.ts), parsed once; null: the page embeds none. */
let embedded: SlaPoint[] | null | undefined;
function embeddedPoints(section: HTMLElement): SlaPoint[] | null {
  if (embedded === undefined) {
    const json = section.querySelector('script[data-sla-points]')?.textContent;
    embedded = json ? decodeSlaPoints(json) : null;
  }
  return embedded;
}

/** DuckDB-Wasm with the SLA table made, once it has started: null until then. */
let sqlReady: AsyncDuckDBConnection | null = null;
let sqlStarting: Promise<AsyncDuckDBConnection> | null = null;
/** Starts DuckDB-Wasm, the release file and the SLA table in the background (once; again after a failure). */
function startSql(section: HTMLElement): Promise<AsyncDuckDBConnection> | null {
  if (!section.dataset.releasesUrl) return null;
  if (sqlStarting === null) {
    const starting = (async () => {
      const conn = await pointsDatabase(section.dataset.releasesUrl!, 'releases');
      await conn.query(releasesSql());
      // Both queries once, unseen: DuckDB-Wasm's first run of a query is several times slower than the next.
      await sqlAnswer(conn, section.dataset.scenario!, { [SLA_METRICS[0].column]: Number.MAX_VALUE });
      sqlReady = conn;
      section.dataset.slaSql = 'ready';
      return conn;
    })();
    // A failure is reported by the answer that waits on it, if any; a later call tries again.
    starting.catch(() => {
      if (sqlStarting === starting) sqlStarting = null;
    });
    sqlStarting = starting;
  }
  return sqlStarting;
}

/** slaSql and pointMediansSql in DuckDB-Wasm: the table's rows and, with limits set, the chart's points. */
async function sqlAnswer(conn: AsyncDuckDBConnection, scenario: string, limits: Limits): Promise<{ rows: SlaRow[]; medians: PointMedians[] | null }> {
  const statement = await conn.prepare(slaSql());
  const result = await statement.query(...slaParameters(scenario, limits));
  await statement.close();
  const rows = result.toArray().map((r) => r.toJSON() as unknown as SlaRow);
  if (Object.keys(limits).length === 0) return { rows, medians: null };
  const points = await conn.prepare(pointMediansSql());
  const medians = (await points.query(scenario)).toArray().map((r) => r.toJSON() as unknown as PointMedians);
  await points.close();
  return { rows, medians };
}

/**
 * Answers the SLA filter and fills its table (text only: values are never HTML). The answer
 * comes from the points the page embeds (sla-answer.ts) at once, and from DuckDB-Wasm (slaSql:
 * the same rows, tests/site/sla-answer.test.ts) once it has started in the background; a page
 * without embedded points waits for DuckDB-Wasm. How close an engine meeting no point came is
 * always from the embedded points.
 */
async function applySla(doc: Document, limits: ViewState['sla']): Promise<void> {
  const section = doc.querySelector<HTMLElement>('section#sla');
  if (!section) return;
  const status = section.querySelector<HTMLElement>('[data-sla-status]')!;
  const table = section.querySelector<HTMLTableElement>('table[data-sla-table]')!;
  const started = performance.now();
  // Where the time of an answer goes (data-sla-phases, read by bench:site): ms since Apply at the end of each step.
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name}:${Math.round(performance.now() - started)}`);
  const scenario = section.dataset.scenario!;
  try {
    const points = embeddedPoints(section);
    const ready = sqlReady;
    const background = startSql(section);
    let engine: 'js' | 'duckdb';
    let rows: readonly SlaRow[];
    let medians: readonly PointMedians[] | null;
    const answered = points === null ? null : answerSla(points, limits as Limits);
    if (ready !== null || answered === null) {
      if (ready === null) status.textContent = 'Loading the release medians…';
      if (ready === null && background === null) throw new Error('no release values on this page');
      const conn = ready ?? (await background!);
      phase('database');
      ({ rows, medians } = await sqlAnswer(conn, scenario, limits as Limits));
      engine = 'duckdb';
    } else {
      rows = answered;
      medians = Object.keys(limits).length === 0 ? null : points;
      engine = 'js';
    }
    phase('query');
    const closest = new Map((answered ?? []).map((a) => [JSON.stringify([a.engine, a.engine_version]), a.closest]));
    // The chart is marked before the table shows, so a reader (or a test) who sees the table sees the marks.
    markPareto(doc, medians, limits as Limits);
    phase('marks');
    const body = table.tBodies[0]!;
    body.replaceChildren(
      ...rows.map((row, i) => {
        const tr = doc.createElement('tr');
        const near = row.throughput === null ? closest.get(JSON.stringify([row.engine, row.engine_version])) : null;
        const cells = [row.throughput === null ? '–' : String(i + 1), `${row.engine} ${row.engine_version}`, row.throughput === null ? `no point meets the limits${near ? `; ${describeClosest(near)}` : ''}` : formatNumber(row.throughput), row.load ?? '–'];
        cells.forEach((text, k) => {
          const td = doc.createElement('td');
          if (k === 1 || k === 3 || (k === 2 && near)) td.className = 'text';
          if (k === 2 && near) td.dataset.closest = '';
          td.textContent = text;
          tr.appendChild(td);
        });
        return tr;
      }),
    );
    table.hidden = false;
    phase('shown');
    section.dataset.slaEngine = engine;
    section.dataset.slaPhases = [`engine:${engine}`, ...phases].join(' ');
    section.dataset.slaMs = String(Math.round(performance.now() - started));
    status.textContent = `${rows.filter((r) => r.throughput !== null).length} of ${rows.length} engines meet the limits.`;
  } catch (error) {
    status.textContent = `The SLA filter could not run: ${(error as Error).message}`;
  }
}

function cellValue(cell: Element | undefined): string {
  return (cell as HTMLElement | undefined)?.dataset.value ?? cell?.textContent?.trim() ?? '';
}

function compare(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  if (a === '' || b === '') return a === b ? 0 : a === '' ? 1 : -1;
  return a.localeCompare(b);
}

export function sortTable(table: HTMLTableElement, key: string, dir: 'asc' | 'desc'): void {
  const headers = [...table.tHead!.rows[0]!.cells];
  const index = headers.findIndex((th) => th.dataset.key === key);
  if (index < 0) return;
  const body = table.tBodies[0]!;
  const rows = [...body.rows];
  rows.sort((r1, r2) => {
    const a = cellValue(r1.cells[index]);
    const b = cellValue(r2.cells[index]);
    // Missing values last in either direction.
    if (a === '' || b === '') return compare(a, b);
    return dir === 'asc' ? compare(a, b) : compare(b, a);
  });
  for (const row of rows) body.appendChild(row);
  headers.forEach((th, i) => (i === index ? th.setAttribute('aria-sort', dir === 'asc' ? 'ascending' : 'descending') : th.removeAttribute('aria-sort')));
}

export function enhanceScenarioPage(doc: Document, win: Window): void {
  const sections = [...doc.querySelectorAll<HTMLElement>('section[data-load]')];
  const loads = sections.map((s) => s.dataset.load!);
  const columns = [...new Set([...doc.querySelectorAll<HTMLElement>('table[data-leaderboard] th[data-key]')].map((th) => th.dataset.key!))];
  const metricSelect = doc.querySelector<HTMLSelectElement>('select[data-history-metric]');
  const historyFigures = [...doc.querySelectorAll<HTMLElement>('figure[data-chart="history"][data-metric]')];
  const state: ViewState = parseViewState(win.location.search, { loads, columns, slaMetrics: SLA_METRICS.map((m) => m.column), metrics: historyFigures.map((f) => f.dataset.metric!) });
  state.load ??= loads[loads.length - 1] ?? null;

  const apply = (push: boolean) => {
    for (const section of sections) section.hidden = section.dataset.load !== state.load;
    for (const link of doc.querySelectorAll<HTMLAnchorElement>('a[data-load-link]')) {
      if (link.dataset.loadLink === state.load) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
    }
    const metric = state.metric ?? metricSelect?.dataset.default ?? null;
    for (const figure of historyFigures) figure.hidden = figure.dataset.metric !== metric;
    if (metricSelect && metric !== null) metricSelect.value = metric;
    if (state.sort) for (const table of doc.querySelectorAll<HTMLTableElement>('table[data-leaderboard]')) sortTable(table, state.sort, state.dir);
    if (push) {
      // Other scripts keep their state in the same query (the charts' ?hide= and ?scale=): replace only this page's keys.
      const params = new URLSearchParams(win.location.search);
      for (const key of [...params.keys()]) if (['load', 'sort', 'dir', 'metric'].includes(key) || key.startsWith('sla.')) params.delete(key);
      for (const [key, value] of new URLSearchParams(serializeViewState(state))) params.append(key, value);
      const query = params.toString();
      win.history.replaceState(null, '', `${win.location.pathname}${query === '' ? '' : `?${query}`}${win.location.hash}`);
    }
  };

  for (const link of doc.querySelectorAll<HTMLAnchorElement>('a[data-load-link]')) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      state.load = link.dataset.loadLink!;
      apply(true);
    });
  }
  for (const th of doc.querySelectorAll<HTMLElement>('table[data-leaderboard] th[data-key]')) {
    th.querySelector('button')?.addEventListener('click', () => {
      const key = th.dataset.key!;
      state.dir = state.sort === key && state.dir === 'desc' ? 'asc' : state.sort === key ? 'desc' : key === 'rank' || key === 'engine' ? 'asc' : 'desc';
      state.sort = key;
      apply(true);
    });
  }
  if (metricSelect) {
    metricSelect.addEventListener('change', () => {
      state.metric = metricSelect.value;
      apply(true);
    });
    doc.querySelector<HTMLElement>('[data-history-controls]')!.hidden = false;
  }
  doc.querySelector('button[data-csv]')?.addEventListener('click', () => {
    const table = doc.querySelector<HTMLTableElement>(`section[data-load="${CSS.escape(state.load ?? '')}"] table`);
    if (!table) return;
    // The numbers from the cells' data attributes, not their formatted text ("5,241 (4,399–5,868)").
    const keys = [...table.tHead!.rows[0]!.cells].map((th) => th.dataset['key'] ?? '');
    const rows = [...table.tBodies[0]!.rows].map((row) =>
      [...row.cells].map((cell) => ({ value: cell.dataset['value'] ?? '', lo: cell.dataset['lo'], hi: cell.dataset['hi'], version: cell.dataset['version'], supported: cell.dataset['supported'] !== 'false' })),
    );
    const blob = new Blob([leaderboardCsv(keys, rows)], { type: 'text/csv' });
    const a = doc.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `servebench-${(state.load ?? 'leaderboard').replace(/[^a-z0-9]+/gi, '-')}.csv`;
    a.click();
    URL.revokeObjectURL(a.href);
  });
  const form = doc.querySelector<HTMLFormElement>('form[data-sla-form]');
  if (form) {
    for (const [metric, value] of Object.entries(state.sla)) (form.elements.namedItem(metric) as HTMLInputElement | null)?.setAttribute('value', String(value));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      state.sla = {};
      for (const m of SLA_METRICS) {
        const value = Number((form.elements.namedItem(m.column) as HTMLInputElement).value);
        if ((form.elements.namedItem(m.column) as HTMLInputElement).value !== '' && Number.isFinite(value) && value > 0) state.sla[m.column] = value;
      }
      apply(true);
      void applySla(doc, state.sla);
    });
    // The first answer needs no DuckDB-Wasm (the page embeds the points), but later ones use it:
    // start it, and the release file's download, in the background when the reader first reaches
    // for the form. Readers who never touch the form download none of it.
    const warm = () => {
      const section = doc.querySelector<HTMLElement>('section#sla');
      if (section) startSql(section)?.catch(() => undefined);
    };
    form.addEventListener('focusin', warm, { once: true });
    form.addEventListener('pointerover', warm, { once: true });
    if (Object.keys(state.sla).length > 0) void applySla(doc, state.sla);
  }
  apply(false);
}
