/**
 * The compare page's island: two engine versions side by side on every configuration both
 * measured. The choices live in the URL (?a=engine@version&b=…, allow-listed by the page's own
 * options); the SQL runs in DuckDB-Wasm, loaded on the first comparison, over the per-release
 * values, geometric means over runs (data/site/releases.arrow). Community and unverified releases are offered only while
 * the community filter is on (?community=1), and named by their badges. A side whose release is
 * not valid on a configuration (docs/metrics.md#validity) is greyed with its status and reason,
 * and that row has no change: an invalid release is never faster or slower. Each change is tested
 * as the store tests a delta (compare-significance.ts: Welch's t-test on the runs' log values, with
 * the runs' log summaries from compare-stats.json), and a summary above the table counts them per
 * metric. React renders only text: names from results are never HTML.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { parseCommunity, withCommunity } from '../lib/community-state.ts';
import { COMPARE_METRICS, compareParameters, compareSql, invalidSides, rowValidity, type CompareRow, type CompareSide, type InvalidSide } from '../lib/compare-query.ts';
import { pointsDatabase } from '../lib/duckdb-client.ts';
import { describeDelta, formatNumber, formatPercent } from '../lib/format.ts';
import { summarizeChanges, testChange, type CompareSummary, type ReleaseLogStats, type TestedChange } from '../lib/compare-significance.ts';
import { exclusionSummary, VALIDITY_LABELS } from '../../harness/contract/validity.ts';

export interface CompareOption {
  readonly value: string;
  readonly label: string;
  /** The release the value names (the query's parameters). */
  readonly side: CompareSide;
  /** A community or unverified release: offered only with the community filter on. */
  readonly community: boolean;
}

interface Props {
  readonly options: readonly CompareOption[];
  readonly releasesUrl: string;
  /** The releases' log summaries (compare-stats.json), fetched with the first comparison. */
  readonly statsUrl: string;
  /** Each hardware key's display name (lanes.json hardware_label): "2 vCPU AMD EPYC (KVM)", not "cpu-2x-AMD EPYC". */
  readonly hardwareNames: Readonly<Record<string, string>>;
}

/** names: each side's release as it was compared ("vllm 1.1.0"), for the note on the sides left out; sides and stats: what each change is tested with. */
type Outcome =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'done'; rows: CompareRow[]; names: Readonly<Record<InvalidSide['side'], string>>; sides: { a: CompareSide; b: CompareSide }; stats: ReleaseLogStats; summary: CompareSummary }
  | { kind: 'failed'; message: string };

/** The word beside a change: the verdict of its test at 95%. */
const VERDICT_WORDS: Readonly<Record<TestedChange['verdict'], string>> = { better: 'better', worse: 'worse', unclear: 'no clear change', untested: 'not tested' };

let statsLoad: Promise<ReleaseLogStats> | null = null;
/** Fetched once per page: every comparison tests against the same compiled runs. */
function releaseStats(url: string): Promise<ReleaseLogStats> {
  statsLoad ??= fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json() as Promise<ReleaseLogStats>;
  });
  statsLoad.catch(() => (statsLoad = null));
  return statsLoad;
}

/** One metric's line of the summary: how many configurations changed which way, at 95%. */
function summaryLine(m: CompareSummary['metrics'][number]): string {
  const parts = [`${m.better} better`, `${m.worse} worse`, `${m.unclear} no clear change`];
  if (m.untested > 0) parts.push(`${m.untested} not tested (a release with one run)`);
  if (m.missing > 0) parts.push(`${m.missing} without a value to compare`);
  return parts.join(', ');
}

const sideWords = (s: InvalidSide, names: Readonly<Record<InvalidSide['side'], string>>) => `${s.side} (${names[s.side]}) ${VALIDITY_LABELS[s.validity]}${s.reason ? `: ${s.reason}` : ''}`;

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

export default function CompareApp({ options: every, releasesUrl, statsUrl, hardwareNames }: Props) {
  const official = every.filter((o) => !o.community);
  const [community, setCommunity] = useState(false);
  // The switch needs this script: it appears once the island runs (never in the prerendered HTML).
  const [interactive, setInteractive] = useState(false);
  const options = community ? every : official;
  const [a, setA] = useState(official[0]?.value ?? '');
  const [b, setB] = useState(official[1]?.value ?? official[0]?.value ?? '');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const sideOf = (value: string) => every.find((o) => o.value === value)!.side;

  const compare = async (first: string, second: string, withCommunityShown = community) => {
    window.history.replaceState(null, '', `${window.location.pathname}${withCommunity(`?${new URLSearchParams({ a: first, b: second }).toString()}`, withCommunityShown)}`);
    setOutcome({ kind: 'loading' });
    try {
      const stats = releaseStats(statsUrl);
      const connection = await pointsDatabase(releasesUrl, 'releases');
      const statement = await connection.prepare(compareSql());
      const result = await statement.query(...compareParameters(sideOf(first), sideOf(second)));
      await statement.close();
      const name = (value: string) => `${sideOf(value).engine} ${sideOf(value).version}`;
      const rows = result.toArray().map((row) => row.toJSON() as unknown as CompareRow);
      const sides = { a: sideOf(first), b: sideOf(second) };
      const tested = await stats;
      setOutcome({ kind: 'done', rows, names: { A: name(first), B: name(second) }, sides, stats: tested, summary: summarizeChanges(rows, sides, tested) });
    } catch (error) {
      setOutcome({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };

  // A permalink runs its comparison at once; values the page does not offer are ignored.
  useEffect(() => {
    const shown = parseCommunity(window.location.search);
    setInteractive(true);
    setCommunity(shown);
    const allowed = new Set((shown ? every : official).map((o) => o.value));
    const params = new URLSearchParams(window.location.search);
    const [first, second] = [params.get('a'), params.get('b')];
    if (first !== null && allowed.has(first)) setA(first);
    if (second !== null && allowed.has(second)) setB(second);
    if (first !== null && second !== null && allowed.has(first) && allowed.has(second)) void compare(first, second, shown);
  }, []);

  const toggleCommunity = (on: boolean) => {
    setCommunity(on);
    window.history.replaceState(null, '', `${window.location.pathname}${withCommunity(window.location.search, on)}`);
    // A community release chosen before the filter went off is no longer offered: back to the official ones.
    if (!on) {
      if (!official.some((o) => o.value === a)) setA(official[0]?.value ?? '');
      if (!official.some((o) => o.value === b)) setB(official[1]?.value ?? official[0]?.value ?? '');
    }
  };

  // The rows with a side that is not valid, each counted once by its first status (rowValidity).
  const excluded = outcome.kind === 'done' ? outcome.rows.map((row, index) => ({ row, index, sides: invalidSides(row) })).filter((e) => e.sides.length > 0) : [];
  const configurationOf = (row: CompareRow) => `${row.model} · ${row.precision} · ${hardwareNames[row.hardware] ?? row.hardware} · ${row.workload} · ${row.load}`;

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
        {interactive && every.length > official.length && (
          <label className="community-toggle">
            <input type="checkbox" data-community-toggle checked={community} onChange={(event) => toggleCommunity(event.target.checked)} /> Show community and unverified releases <span className="muted">(never ranked)</span>
          </label>
        )}
      </form>
      <p role="status" aria-live="polite" data-compare-status>{statusText(outcome)}</p>
      {outcome.kind === 'done' && outcome.rows.length > 0 && (
        <div data-compare-summary>
          <p>
            {`${outcome.names.B} (B) vs ${outcome.names.A} (A) on ${outcome.summary.configurations} shared configuration${outcome.summary.configurations === 1 ? '' : 's'}`}
            {outcome.summary.excluded > 0 ? `, ${outcome.summary.excluded} not compared (a side is not valid)` : ''}
            {'; changes significant at 95%:'}
          </p>
          <ul>
            {outcome.summary.metrics.map((m) => {
              const metric = COMPARE_METRICS.find((c) => c.column === m.column)!;
              return <li key={m.column} data-summary-metric={m.column}>{`${metric.label}: ${summaryLine(m)}`}</li>;
            })}
          </ul>
        </div>
      )}
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
            {outcome.kind === 'done' && outcome.rows.map((row, index) => {
              const invalid = invalidSides(row);
              const validityOf = (side: InvalidSide['side']) => invalid.find((s) => s.side === side)?.validity ?? 'valid';
              const notCompared = invalid.length > 0 ? `not compared: ${invalid.map((s) => sideWords(s, outcome.names)).join('; ')}` : undefined;
              return (
                <tr key={index} data-compare-row data-a-validity={validityOf('A')} data-b-validity={validityOf('B')}>
                  <td className="text">
                    {configurationOf(row)}
                    {invalid.map((s) => <span key={s.side}> <span className="badge" data-validity-badge={s.side} title={s.reason ?? undefined}>{`${s.side}: ${VALIDITY_LABELS[s.validity]}`}</span></span>)}
                  </td>
                  {COMPARE_METRICS.map((m) => {
                    const tested = testChange(row, m, outcome.sides, outcome.stats, { a: outcome.names.A, b: outcome.names.B });
                    const view = tested ? describeDelta(tested.facts, m.unit) : null;
                    return [
                      <td key={`${m.column}-a`} data-validity={validityOf('A')}>{formatNumber(row[`a_${m.column}`] as number | null)}</td>,
                      <td key={`${m.column}-b`} data-validity={validityOf('B')}>{formatNumber(row[`b_${m.column}`] as number | null)}</td>,
                      <td key={`${m.column}-change`} data-change data-verdict={tested?.verdict}>
                        {tested && view ? (
                          <span className={view.className} title={view.title}>
                            {formatPercent(tested.facts.change_pct)} <small>{VERDICT_WORDS[tested.verdict]}</small>
                          </span>
                        ) : notCompared ? (
                          <span className="muted" data-not-compared title={notCompared}>–</span>
                        ) : (
                          '–'
                        )}
                      </td>,
                    ];
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {excluded.length > 0 && outcome.kind === 'done' && (
        <details data-excluded className="small">
          <summary>{`${exclusionSummary(excluded.map((e) => rowValidity(e.row)), 'configuration')}: greyed, no change computed`}</summary>
          <ul>
            {excluded.map((e) => <li key={e.index}>{`${configurationOf(e.row)}: ${e.sides.map((s) => sideWords(s, outcome.names)).join('; ')}`}</li>)}
          </ul>
        </details>
      )}
    </>
  );
}
