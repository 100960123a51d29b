/**
 * The scenario page's interactions, on top of tables that are complete without JavaScript:
 * one load point at a time (in the URL), sort by any column (in the URL), CSV export, the SLA
 * filter and its marks on the Pareto chart (limits in the URL), the history chart's metric (in
 * the URL).
 */
import { leaderboardCsv } from './csv.ts';
import { pointsDatabase } from './duckdb-client.ts';
import { formatNumber } from './format.ts';
import { markPareto, pointMediansSql, type Limits, type PointMedians } from './pareto-sla.ts';
import { releasesSql, SLA_METRICS, slaParameters, slaSql, type SlaColumn, type SlaRow } from './sla-query.ts';
import { parseViewState, serializeViewState, type ViewState } from './url-state.ts';

/** Runs the SLA query in the browser and fills the SLA table (text only: values are never HTML). */
async function applySla(doc: Document, limits: ViewState['sla']): Promise<void> {
  const section = doc.querySelector<HTMLElement>('section#sla');
  if (!section) return;
  const status = section.querySelector<HTMLElement>('[data-sla-status]')!;
  const table = section.querySelector<HTMLTableElement>('table[data-sla-table]')!;
  status.textContent = 'Loading the release medians…';
  const started = performance.now();
  // Where the time of an answer goes (data-sla-phases, read by bench:site): ms since Apply at the end of each step.
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name}:${Math.round(performance.now() - started)}`);
  try {
    const conn = await pointsDatabase(section.dataset.releasesUrl!, 'releases');
    phase('database');
    await conn.query(releasesSql());
    phase('table');
    const statement = await conn.prepare(slaSql());
    const result = await statement.query(...slaParameters(section.dataset.scenario!, limits as Partial<Record<SlaColumn, number>>));
    await statement.close();
    phase('query');
    const rows = result.toArray().map((r) => r.toJSON() as unknown as SlaRow);
    // The chart is marked before the table shows, so a reader (or a test) who sees the table sees the marks.
    if (Object.keys(limits).length === 0) markPareto(doc, null, {});
    else {
      const points = await conn.prepare(pointMediansSql());
      const medians = (await points.query(section.dataset.scenario!)).toArray().map((r) => r.toJSON() as unknown as PointMedians);
      await points.close();
      markPareto(doc, medians, limits as Limits);
    }
    phase('marks');
    const body = table.tBodies[0]!;
    body.replaceChildren(
      ...rows.map((row, i) => {
        const tr = doc.createElement('tr');
        const cells = [row.throughput === null ? '–' : String(i + 1), `${row.engine} ${row.engine_version}`, row.throughput === null ? 'no point meets the limits' : formatNumber(row.throughput), row.load ?? '–'];
        cells.forEach((text, k) => {
          const td = doc.createElement('td');
          if (k === 1 || k === 3) td.className = 'text';
          td.textContent = text;
          tr.appendChild(td);
        });
        return tr;
      }),
    );
    table.hidden = false;
    phase('shown');
    section.dataset.slaPhases = phases.join(' ');
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
    // DuckDB-Wasm takes a second or two to start on a small machine: start it (and the release
    // file's download) when the reader first reaches for the form, so typing a limit hides it.
    // Readers who never touch the form download none of it.
    const warm = () => {
      const section = doc.querySelector<HTMLElement>('section#sla');
      if (section?.dataset.releasesUrl) pointsDatabase(section.dataset.releasesUrl, 'releases').catch(() => undefined);
    };
    form.addEventListener('focusin', warm, { once: true });
    form.addEventListener('pointerover', warm, { once: true });
    if (Object.keys(state.sla).length > 0) void applySla(doc, state.sla);
  }
  apply(false);
}
