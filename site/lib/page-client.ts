/**
 * The scenario page's interactions, on top of tables that are complete without JavaScript:
 * one load point at a time (in the URL), sort by any column (in the URL), CSV export.
 */
import { toCsv } from './csv.ts';
import { parseViewState, serializeViewState, type ViewState } from './url-state.ts';

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
  const state: ViewState = parseViewState(win.location.search, { loads, columns, slaMetrics: [] });
  state.load ??= loads[loads.length - 1] ?? null;

  const apply = (push: boolean) => {
    for (const section of sections) section.hidden = section.dataset.load !== state.load;
    for (const link of doc.querySelectorAll<HTMLAnchorElement>('a[data-load-link]')) {
      if (link.dataset.loadLink === state.load) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
    }
    if (state.sort) for (const table of doc.querySelectorAll<HTMLTableElement>('table[data-leaderboard]')) sortTable(table, state.sort, state.dir);
    if (push) win.history.replaceState(null, '', `${win.location.pathname}${serializeViewState(state)}`);
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
  doc.querySelector('button[data-csv]')?.addEventListener('click', () => {
    const table = doc.querySelector<HTMLTableElement>(`section[data-load="${CSS.escape(state.load ?? '')}"] table`);
    if (!table) return;
    const header = [...table.tHead!.rows[0]!.cells].map((th) => th.textContent!.trim().replace(/\s+/g, ' '));
    const rows = [...table.tBodies[0]!.rows].map((row) => [...row.cells].map((cell) => cell.textContent!.trim().replace(/\s+/g, ' ')));
    const blob = new Blob([toCsv(header, rows)], { type: 'text/csv' });
    const a = doc.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `servebench-${(state.load ?? 'leaderboard').replace(/[^a-z0-9]+/gi, '-')}.csv`;
    a.click();
    URL.revokeObjectURL(a.href);
  });
  apply(false);
}
