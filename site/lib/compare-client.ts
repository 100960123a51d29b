/** The compare page: choices in the URL (?a=engine@version&b=…, allow-listed by the page's own options), SQL in DuckDB-Wasm. */
import { COMPARE_METRICS, compareSql, type CompareRow } from './compare-query.ts';
import { pointsDatabase } from './duckdb-client.ts';
import { formatNumber, formatPercent } from './format.ts';

export function enhanceComparePage(doc: Document, win: Window): void {
  const form = doc.querySelector<HTMLFormElement>('form[data-compare-form]');
  if (!form) return;
  const selects = { a: form.elements.namedItem('a') as HTMLSelectElement, b: form.elements.namedItem('b') as HTMLSelectElement };
  const allowed = new Set([...selects.a.options].map((o) => o.value));
  const params = new URLSearchParams(win.location.search);
  for (const key of ['a', 'b'] as const) {
    const value = params.get(key);
    if (value !== null && allowed.has(value)) selects[key].value = value;
  }
  const status = doc.querySelector<HTMLElement>('[data-compare-status]')!;
  const table = doc.querySelector<HTMLTableElement>('table[data-compare-table]')!;
  const run = async () => {
    const [a, b] = [selects.a.value, selects.b.value];
    win.history.replaceState(null, '', `${win.location.pathname}?${new URLSearchParams({ a, b }).toString()}`);
    status.textContent = 'Loading the releases…';
    try {
      const conn = await pointsDatabase(form.dataset.releasesUrl!, 'releases');
      const statement = await conn.prepare(compareSql());
      const split = (v: string) => [v.slice(0, v.indexOf('@')), v.slice(v.indexOf('@') + 1)];
      const result = await statement.query(...split(a), ...split(b));
      await statement.close();
      const rows = result.toArray().map((r) => r.toJSON() as unknown as CompareRow);
      table.tBodies[0]!.replaceChildren(
        ...rows.map((row) => {
          const tr = doc.createElement('tr');
          const cells = [`${row.model} · ${row.precision} · ${row.hardware} · ${row.workload} · ${row.load}`];
          for (const m of COMPARE_METRICS) {
            const x = row[`a_${m.column}`] as number | null;
            const y = row[`b_${m.column}`] as number | null;
            cells.push(formatNumber(x), formatNumber(y), x && y ? formatPercent((y / x - 1) * 100) : '–');
          }
          cells.forEach((text, i) => {
            const td = doc.createElement('td');
            if (i === 0) td.className = 'text';
            td.textContent = text;
            tr.appendChild(td);
          });
          return tr;
        }),
      );
      table.hidden = false;
      status.textContent = `${rows.length} configuration${rows.length === 1 ? '' : 's'} measured by both.`;
    } catch (error) {
      status.textContent = `The comparison could not run: ${(error as Error).message}`;
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  if (params.has('a') && params.has('b')) void run();
}
