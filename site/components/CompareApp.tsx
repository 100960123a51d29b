/**
 * The compare page's island: two engine versions side by side on every configuration both
 * measured. The choices live in the URL (?a=engine@version&b=…, allow-listed by the page's own
 * options); the SQL runs in DuckDB-Wasm, loaded on the first comparison, over the per-release
 * medians (data/site/releases.arrow). React renders only text: names from results are never HTML.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { COMPARE_METRICS, compareSql, type CompareRow } from '../lib/compare-query.ts';
import { pointsDatabase } from '../lib/duckdb-client.ts';
import { formatNumber, formatPercent } from '../lib/format.ts';

export interface CompareOption {
  readonly value: string;
  readonly label: string;
}

interface Props {
  readonly options: readonly CompareOption[];
  readonly releasesUrl: string;
}

type Outcome = { kind: 'idle' } | { kind: 'loading' } | { kind: 'done'; rows: CompareRow[] } | { kind: 'failed'; message: string };

function engineAndVersion(value: string): [string, string] {
  const at = value.indexOf('@');
  return [value.slice(0, at), value.slice(at + 1)];
}

function statusText(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'idle':
      return '';
    case 'loading':
      return 'Loading the releases…';
    case 'done':
      return `${outcome.rows.length} configuration${outcome.rows.length === 1 ? '' : 's'} measured by both.`;
    case 'failed':
      return `The comparison could not run: ${outcome.message}`;
  }
}

export default function CompareApp({ options, releasesUrl }: Props) {
  const [a, setA] = useState(options[0]?.value ?? '');
  const [b, setB] = useState(options[1]?.value ?? options[0]?.value ?? '');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });

  const compare = async (first: string, second: string) => {
    window.history.replaceState(null, '', `${window.location.pathname}?${new URLSearchParams({ a: first, b: second }).toString()}`);
    setOutcome({ kind: 'loading' });
    try {
      const connection = await pointsDatabase(releasesUrl, 'releases');
      const statement = await connection.prepare(compareSql());
      const result = await statement.query(...engineAndVersion(first), ...engineAndVersion(second));
      await statement.close();
      setOutcome({ kind: 'done', rows: result.toArray().map((row) => row.toJSON() as unknown as CompareRow) });
    } catch (error) {
      setOutcome({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };

  // A permalink runs its comparison at once; values the page does not offer are ignored.
  useEffect(() => {
    const allowed = new Set(options.map((o) => o.value));
    const params = new URLSearchParams(window.location.search);
    const [first, second] = [params.get('a'), params.get('b')];
    if (first !== null && allowed.has(first)) setA(first);
    if (second !== null && allowed.has(second)) setB(second);
    if (first !== null && second !== null && allowed.has(first) && allowed.has(second)) void compare(first, second);
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void compare(a, b);
  };

  return (
    <>
      <form data-compare-form className="controls" onSubmit={submit}>
        <label>
          A{' '}
          <select name="a" value={a} onChange={(event) => setA(event.target.value)}>
            {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
        </label>
        <label>
          B{' '}
          <select name="b" value={b} onChange={(event) => setB(event.target.value)}>
            {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
        </label>
        <button type="submit">Compare</button>
      </form>
      <p role="status" aria-live="polite" data-compare-status>{statusText(outcome)}</p>
      <div className="table-wrap" tabIndex={0}>
        <table data-compare-table hidden={outcome.kind !== 'done'}>
          <thead>
            <tr>
              <th scope="col" className="text">Configuration</th>
              {COMPARE_METRICS.map((m) => [
                <th key={`${m.column}-a`} scope="col">{m.label} A <span className="muted">{m.unit}</span></th>,
                <th key={`${m.column}-b`} scope="col">{m.label} B</th>,
                <th key={`${m.column}-change`} scope="col">B vs A</th>,
              ])}
            </tr>
          </thead>
          <tbody>
            {/* Rows are replaced whole on each comparison, so their position is a stable key. */}
            {outcome.kind === 'done' && outcome.rows.map((row, index) => (
              <tr key={index}>
                <td className="text">{`${row.model} · ${row.precision} · ${row.hardware} · ${row.workload} · ${row.load}`}</td>
                {COMPARE_METRICS.map((m) => {
                  const x = row[`a_${m.column}`] as number | null;
                  const y = row[`b_${m.column}`] as number | null;
                  return [
                    <td key={`${m.column}-a`}>{formatNumber(x)}</td>,
                    <td key={`${m.column}-b`}>{formatNumber(y)}</td>,
                    <td key={`${m.column}-change`}>{x && y ? formatPercent((y / x - 1) * 100) : '–'}</td>,
                  ];
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
