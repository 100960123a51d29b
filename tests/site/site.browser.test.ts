/**
 * The built site in a real browser (Debian's chromium through playwright-core): the SYNTHETIC
 * fixture of tests/store is compiled, the site built from it and served on 127.0.0.1, then each
 * page type is opened. Rankings are checked against the result files themselves. No request may
 * leave the site's own host, and no console error may appear. Screenshots go to test-artifacts/.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { serveStatic } from '../../scripts/static-server.ts';
import { formatNumber, formatPercent } from '../../site/lib/format.ts';
import { COMPARE_METRICS } from '../../site/lib/compare-query.ts';
import { buildSite, openBuiltSite, REPO, type ServedSite } from './built-site.ts';

const ARTIFACTS = join(REPO, 'test-artifacts', 'site');
const root = mkdtempSync(join(tmpdir(), 'servebench-site-'));
let results: RunResult[] = [];
let extra: RunResult[] = [];
let failed: RunResult;
/** SYNTHETIC: vllm 1.2.0 on summarize, the fastest there, whose c=2 point missed the prefix cache (cache_mismatch): greyed, never ranked. */
let cacheMissed: RunResult;
/** SYNTHETIC community runs on the chat configuration: three half-speed repeats of vllm 1.1.0 and an lmdeploy run 100× faster than the fleet. */
let community: RunResult[] = [];
let site: ServedSite;
let opened: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let browser: Browser;
const foreignRequests: string[] = [];
const consoleErrors: string[] = [];

async function open(path: string, name: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page.on('console', (message) => (message.type() === 'error' ? consoleErrors.push(`${path}: ${message.text()}`) : undefined));
  page.on('pageerror', (error) => consoleErrors.push(`${path}: ${error.message}`));
  page.on('request', (request) => (new URL(request.url()).host !== new URL(site.url).host && !request.url().startsWith('data:') && !request.url().startsWith('blob:') ? foreignRequests.push(request.url()) : undefined));
  await page.goto(`${site.url}${path}`);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  return page;
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const resultsDir = join(root, 'results');
  results = writeFixture(resultsDir).map((p) => JSON.parse(readFileSync(join(resultsDir, p), 'utf8')) as RunResult);
  // A second configuration (workload summarize) for the home page's filter, and a failed run: SYNTHETIC, official as the fleet's.
  const summarize: Omit<SyntheticRun, 'engine' | 'version' | 'date' | 'seed'> = { model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'summarize', concurrencies: [2, 4], tpotMs: 12, ttftMs: 300, noise: 0.02, source: 'official' };
  extra = [
    { ...summarize, engine: 'vllm', version: '1.1.0', date: new Date(Date.UTC(2026, 1, 12, 3)), seed: 400 },
    { ...summarize, engine: 'sglang', version: '2.1.0', tpotMs: 10, date: new Date(Date.UTC(2026, 1, 13, 3)), seed: 401 },
  ].map((run) => JSON.parse(readFileSync(join(resultsDir, writeResult(resultsDir, syntheticResult(run))), 'utf8')) as RunResult);
  const broken = syntheticResult({ ...summarize, engine: 'vllm', version: '1.1.0', date: new Date(Date.UTC(2026, 1, 14, 3)), seed: 402 });
  failed = { ...broken, status: 'failed', points: [], run: { ...broken.run!, failure: { phase: 'launch', message: 'CUDA out of memory while loading the weights', log_tail: [] } } };
  writeResult(resultsDir, failed);
  cacheMissed = syntheticResult({ ...summarize, engine: 'vllm', version: '1.2.0', tpotMs: 4, ttftMs: 100, date: new Date(Date.UTC(2026, 1, 13, 5)), seed: 403 });
  const missed = cacheMissed.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 2)!;
  missed.cache = { requests: missed.metrics.completed, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 40, theoretical_hit_rate: 0.5, observed_hit_rate: 0.04, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'cache_mismatch', cause: 'client rewrote history' };
  writeResult(resultsDir, cacheMissed);
  const vllm = results.find((r) => r.run!.engine.name === 'vllm' && r.run!.engine.version === '1.1.0')!;
  const chat: Omit<SyntheticRun, 'engine' | 'version' | 'date' | 'seed'> = { model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', concurrencies: [1, 8], tpotMs: 20, ttftMs: 120, noise: 0.02, source: 'community' };
  community = [
    ...[0, 1, 2].map((i) => ({ ...chat, engine: 'vllm', version: vllm.run!.engine.version!, date: new Date(Date.UTC(2026, 1, 20, 3, i)), seed: 500 + i })),
    { ...chat, engine: 'lmdeploy', version: '1.0.0', tpotMs: 0.1, ttftMs: 0.6, date: new Date(Date.UTC(2026, 1, 21, 3)), seed: 510 },
  ].map((run) => JSON.parse(readFileSync(join(resultsDir, writeResult(resultsDir, syntheticResult(run))), 'utf8')) as RunResult);
  // The Reproduce block's repository is the build's configuration (compile writes the block), as the site's links are.
  process.env['SERVEBENCH_REPO_URL'] = 'https://github.com/servebench/servebench';
  await compile({ resultsDir, outDir: join(root, 'data'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  opened = await openBuiltSite(join(root, 'data'), join(root, 'site'), { SERVEBENCH_REPO_URL: 'https://github.com/servebench/servebench' });
  ({ site, browser } = opened);
}, 240_000);

afterAll(() => opened?.close());

/** Engines at c=8 by the release value (geometric mean over runs) of their newest version's output throughput (from the files). */
function expectedOrderAtC8(): string[] {
  const newest = new Map<string, { version: string; values: number[] }>();
  for (const r of results) {
    const engine = r.run!.engine.name;
    const version = r.run!.engine.version!;
    const value = r.points.find((p) => p.load.mode === 'closed' && p.load.mode === 'closed' && p.load.concurrency === 8)!.metrics.output_throughput!;
    const current = newest.get(engine);
    if (!current || version > current.version) newest.set(engine, { version, values: [value] });
    else if (version === current.version) current.values.push(value);
  }
  return [...newest.entries()].sort((a, b) => geoMean(b[1].values) - geoMean(a[1].values)).map(([engine]) => engine);
}

/** A release's value: the geometric mean over its runs (docs/metrics.md). */
const geoMean = (v: number[]) => Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length);

/** The 95% t-interval of the mean of the logs, exponentiated: what compile publishes as <metric>__lo/__hi. */
function tInterval(values: number[]): [number, number] {
  const logs = values.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  // t quantiles at 0.975 for 1..4 degrees of freedom.
  const t = [12.706204736, 4.30265273, 3.182446305, 2.776445105][logs.length - 2]!;
  const half = (t * sd) / Math.sqrt(logs.length);
  return [Math.exp(mean - half), Math.exp(mean + half)];
}

/** Capacity at a tier from the files: the highest throughput per GPU among the loads whose TTFT p95 and TPOT p95 meet the limits (each the geometric mean over runs). */
function expectedCapacity(runs: RunResult[], engine: string, version: string, concurrencies: number[], limits: { ttft_ms_p95: number; tpot_ms_p95: number }): { throughput: number; load: string } | null {
  const mine = runs.filter((r) => r.run!.engine.name === engine && r.run!.engine.version === version);
  let best: { throughput: number; load: string } | null = null;
  for (const c of concurrencies) {
    const metrics = mine.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === c)!.metrics);
    const ttft = geoMean(metrics.map((m) => m.ttft_ms!.p95));
    const tpot = geoMean(metrics.map((m) => m.tpot_ms!.p95));
    const throughput = geoMean(metrics.map((m) => m.output_throughput!));
    if (ttft <= limits.ttft_ms_p95 && tpot <= limits.tpot_ms_p95 && (best === null || throughput > best.throughput)) best = { throughput, load: `c=${c}` };
  }
  return best;
}

/** The SLA-throughput frontier computed from the result files, independently of the site's SQL. */
function expectedSla(limits: { ttft_ms_p95?: number; tpot_ms_p95?: number }): Array<[string, string | null]> {
  const newest = new Map<string, string>();
  for (const r of results) if ((newest.get(r.run!.engine.name) ?? '') < r.run!.engine.version!) newest.set(r.run!.engine.name, r.run!.engine.version!);
  const rows: Array<[string, number | null, string | null]> = [];
  for (const [engine, version] of newest) {
    const runs = results.filter((r) => r.run!.engine.name === engine && r.run!.engine.version === version);
    let best: [number, string] | null = null;
    for (const concurrency of [1, 8]) {
      const points = runs.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!.metrics);
      const ttft = geoMean(points.map((m) => m.ttft_ms!.p95));
      const tpot = geoMean(points.map((m) => m.tpot_ms!.p95));
      const throughput = geoMean(points.map((m) => m.output_throughput!));
      if (ttft <= (limits.ttft_ms_p95 ?? Infinity) && tpot <= (limits.tpot_ms_p95 ?? Infinity) && (best === null || throughput > best[0])) best = [throughput, `c=${concurrency}`];
    }
    rows.push([`${engine} ${version}`, best?.[0] ?? null, best?.[1] ?? null]);
  }
  // Engines with equal throughput (none meeting the limits, say) in engine order, as the page orders them.
  rows.sort((a, b) => (b[1] ?? -1) - (a[1] ?? -1) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return rows.map(([engine, , load]) => [engine, load]);
}

/** Each engine version at each load point, with the geometric means over its runs, from the result files (as the Pareto chart plots them). */
function releasePoints(): Array<{ engine: string; version: string; load: string; interactivity: number; ttftP95: number; tpotP95: number }> {
  const keys = new Map<string, RunResult[]>();
  for (const r of results) keys.set(`${r.run!.engine.name}@${r.run!.engine.version!}`, [...(keys.get(`${r.run!.engine.name}@${r.run!.engine.version!}`) ?? []), r]);
  return [...keys.values()].flatMap((runs) =>
    [1, 8].map((concurrency) => {
      const metrics = runs.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!.metrics);
      return {
        engine: runs[0]!.run!.engine.name,
        version: runs[0]!.run!.engine.version!,
        load: `c=${concurrency}`,
        interactivity: geoMean(metrics.map((m) => m.interactivity_tok_s!.p50)),
        ttftP95: geoMean(metrics.map((m) => m.ttft_ms!.p95)),
        tpotP95: geoMean(metrics.map((m) => m.tpot_ms!.p95)),
      };
    }),
  );
}

/** How the Pareto chart and its table mark each point: "engine version load" → pass or fail. */
async function paretoMarks(page: Page): Promise<{ chart: Record<string, string | null>; table: Record<string, string> }> {
  return page.evaluate(() => {
    const chart: Record<string, string | null> = {};
    for (const g of document.querySelectorAll<SVGGElement>('figure[data-chart="pareto"] g[data-point]')) chart[`${g.dataset.engine} ${g.dataset.version} ${g.dataset.load}`] = g.getAttribute('data-sla');
    const table: Record<string, string> = {};
    for (const tr of document.querySelectorAll<HTMLTableRowElement>('table[data-pareto-table] tbody tr')) table[`${tr.dataset.engine} ${tr.dataset.version} ${tr.dataset.load}`] = tr.querySelector('td[data-sla-cell]')!.textContent!;
    return { chart, table };
  });
}

/** An argv without the named options and their values. */
function withoutOptions(argv: readonly string[], names: readonly string[]): string[] {
  return argv.filter((arg, i) => !names.includes(arg) && !names.includes(argv[i - 1] ?? ''));
}

const engineColumn = (page: Page, load: string) => page.locator(`section[data-load="${load}"] table tbody tr td:nth-child(2)`).allInnerTexts();

type Point = RunResult['points'][number];

/**
 * A point's value of a compared metric column, from the file: a rate when positive, a percentile
 * when its sample supports it (n ≥ 1/(1−p): p50 from 2, p95 from 20, p99 from 100; docs/metrics.md#sample-sufficiency), else null.
 */
function pointValue(point: Point, column: string): number | null {
  const metrics = point.metrics as unknown as Record<string, unknown>;
  const rate = metrics[column];
  if (typeof rate === 'number') return rate > 0 ? rate : null;
  const [, distribution, digits] = column.match(/^(.*)_p(\d+)$/)!;
  const d = metrics[distribution!] as Record<string, number | undefined> | null;
  const value = d?.[`p${digits}`];
  return typeof value === 'number' && (d!.count ?? 0) >= Math.round(1 / (1 - Number(`0.${digits}`))) ? value : null;
}

/** A release's values of a column over its points, or null when one point has none (the fixture's runs agree). */
function releaseValues(points: readonly Point[], column: string): number[] | null {
  const values = points.map((p) => pointValue(p, column));
  return values.every((v): v is number => v !== null) ? values : null;
}

/**
 * The regression check, from the result files (official runs): per engine, workload and load, its
 * newest two releases whose points there are valid (the fixture's one invalid point: a cache
 * mismatch), on every compared metric both have. Welch's test when both have 2 runs or more, else
 * the engine's pooled noise on that load when any of its valid releases there was repeated, else
 * untestable. Regressions: the Welch-tested ones ≥ 10% worse (the planted 15% against 2% noise is
 * significant; the test checks the intervals do not overlap).
 */
function expectedRegressionCheck(): { comparisons: number; welch: number; noiseBand: number; untested: number; regressions: number } {
  const releases = new Map<string, Map<string, Point[]>>();
  for (const r of [...results, ...extra, cacheMissed]) {
    for (const point of r.points) {
      const key = JSON.stringify([r.run!.engine.name, r.workload.name, point.load.mode === 'closed' ? point.load.concurrency : null]);
      const versions = releases.get(key) ?? new Map<string, Point[]>();
      versions.set(r.run!.engine.version!, [...(versions.get(r.run!.engine.version!) ?? []), point]);
      releases.set(key, versions);
    }
  }
  const valid = (points: Point[]) => points.every((p) => p.cache?.verdict !== 'cache_mismatch');
  const order = (a: string, b: string) => b.split('.').map(Number).reduce((d, x, i) => d || x - Number(a.split('.')[i]), 0);
  const repeated = (engine: string, load: number | null, column: string) =>
    [...releases].some(([key, versions]) => {
      const [e, , l] = JSON.parse(key) as [string, string, number | null];
      return e === engine && l === load && [...versions.values()].some((points) => valid(points) && (releaseValues(points, column)?.length ?? 0) >= 2);
    });
  const check = { comparisons: 0, welch: 0, noiseBand: 0, untested: 0, regressions: 0 };
  for (const [key, versions] of releases) {
    const [engine, , load] = JSON.parse(key) as [string, string, number | null];
    const [next, previous] = [...versions].filter(([, points]) => valid(points)).sort(([a], [b]) => order(a, b));
    if (!next || !previous) continue;
    for (const metric of HEADLINE_METRICS.filter((m) => m.compared)) {
      const [a, b] = [releaseValues(previous[1], metric.column), releaseValues(next[1], metric.column)];
      if (!a || !b) continue;
      check.comparisons += 1;
      if (a.length >= 2 && b.length >= 2) {
        check.welch += 1;
        const change = geoMean(b) / geoMean(a) - 1;
        const worse = metric.better === 'higher' ? change < 0 : change > 0;
        if (worse && Math.abs(change) >= 0.1) {
          const [[loA, hiA], [loB, hiB]] = [tInterval(a), tInterval(b)];
          expect(hiB < loA || hiA < loB, `${key} ${metric.column}: intervals apart`).toBe(true);
          check.regressions += 1;
        }
      } else if (repeated(engine, load, metric.column)) check.noiseBand += 1;
      else check.untested += 1;
    }
  }
  return check;
}

describe('the site in Chromium', () => {
  it('overview lists the configuration and links to its leaderboard', async () => {
    const page = await open('/', 'overview');
    await expect(page.locator('#scenarios tbody tr').count()).resolves.toBe(2);
    await expect(page.locator('#scenarios tbody tr td').first().innerText()).resolves.toBe('synthetic/llama-8b');
    await page.locator('#scenarios a').first().click();
    await page.waitForURL(/\/scenario\/[0-9a-f]{12}\/$/);
    await page.close();
  });

  it('leaderboard: ranks as the result files say, one load point at a time, deltas in words, sort and permalink', async () => {
    const overview = await open('/', 'overview-again');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await open(href, 'scenario');
    // The highest load is shown first; the other is hidden.
    await expect(page.locator('section[data-load="c=8"]').isVisible()).resolves.toBe(true);
    await expect(page.locator('section[data-load="c=1"]').isVisible()).resolves.toBe(false);
    const engines = (await engineColumn(page, 'c=8')).map((cell) => cell.split(/\s+/)[0]);
    expect(engines).toEqual(expectedOrderAtC8());
    expect(await page.locator('section[data-load="c=8"] tbody td:first-child').allInnerTexts()).toEqual(['1', '2']);
    // The Pareto chart is static SVG from Observable Plot: one point per engine version and load (4 versions × 2 loads),
    // the newest versions emphasised, no SLA marks before limits are applied.
    await expect(page.locator('figure.chart svg').first().isVisible()).resolves.toBe(true);
    const points = releasePoints();
    const marks = await paretoMarks(page);
    expect(Object.keys(marks.chart).sort()).toEqual(points.map((p) => `${p.engine} ${p.version} ${p.load}`).sort());
    expect(Object.values(marks.chart).every((v) => v === null)).toBe(true);
    const newestVersions = new Map<string, string>();
    for (const p of points) if ((newestVersions.get(p.engine) ?? '') < p.version) newestVersions.set(p.engine, p.version);
    expect(await page.locator('figure[data-chart="pareto"] g[data-point].newest').evaluateAll((gs) => gs.map((g) => `${(g as SVGElement).dataset.engine} ${(g as SVGElement).dataset.version}`))).toEqual(
      expect.arrayContaining([...newestVersions].map(([engine, version]) => `${engine} ${version}`)),
    );
    await expect(page.locator('figure[data-chart="pareto"] g[data-point].newest').count()).resolves.toBe(newestVersions.size * 2);
    await expect(page.locator('figure[data-chart="pareto"] g[data-sla-bound]').getAttribute('display')).resolves.toBe('none');
    // History: one figure per headline metric, only output throughput shown by default, with one dot per release at the
    // highest load (vllm 1.0.0, 1.1.0; sglang 2.0.0, 2.1.0).
    await expect(page.locator('figure[data-chart="history"]:visible').count()).resolves.toBe(1);
    await expect(page.locator('figure[data-chart="history"]:visible').getAttribute('data-metric')).resolves.toBe('output_throughput');
    await expect(page.locator('figure[data-chart="history"]:visible svg circle').count()).resolves.toBe(4);
    await expect(page.locator('figure[data-chart="history"]').count()).resolves.toBeGreaterThan(5);
    const vllmDelta = page.locator('section[data-load="c=8"] tr', { hasText: 'vllm' }).locator('td[data-col="delta"]');
    await expect(vllmDelta.innerText()).resolves.toMatch(/^▼ −1\d\.\d% worse$/);
    await expect(vllmDelta.locator('span').first().getAttribute('class')).resolves.toBe('delta-worse');
    await expect(vllmDelta.locator('span').first().getAttribute('title')).resolves.toMatch(/^1\.0\.0: .* → 1\.1\.0: .*Welch/);

    await page.locator('a[data-load-link="c=1"]').click();
    await expect(page.locator('section[data-load="c=1"]').isVisible()).resolves.toBe(true);
    await page.locator('section[data-load="c=1"] th[data-key="ttft_ms_p50"] button').click();
    await page.locator('section[data-load="c=1"] th[data-key="ttft_ms_p50"] button').click();
    expect(new URL(page.url()).search).toBe('?load=c%3D1&sort=ttft_ms_p50&dir=asc');
    const ttft = async () => (await page.locator('section[data-load="c=1"] tbody td[data-col="ttft_ms_p50"] .value').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
    const sorted = await ttft();
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b));
    // TTFT p99 from the fixture's 64 requests a point (it needs 100): its sample size in place of a value, in every row.
    expect((await page.locator('section[data-load="c=1"] tbody td[data-col="ttft_ms_p99"]').allInnerTexts()).map((t) => t.trim())).toEqual(sorted.map(() => 'n = 64'));
    const sortedEngines = await engineColumn(page, 'c=1');

    const permalink = await open(`${href}?load=c%3D1&sort=ttft_ms_p50&dir=asc`, 'scenario-permalink');
    await expect(permalink.locator('section[data-load="c=1"]').isVisible()).resolves.toBe(true);
    await expect(permalink.locator('section[data-load="c=8"]').isVisible()).resolves.toBe(false);
    expect(await engineColumn(permalink, 'c=1')).toEqual(sortedEngines);
    await expect(permalink.locator('section[data-load="c=1"] th[data-key="ttft_ms_p50"]').getAttribute('aria-sort')).resolves.toBe('ascending');

    const download = permalink.waitForEvent('download');
    await permalink.locator('button[data-csv]').click();
    const csv = readFileSync((await (await download).path())!, 'utf8');
    const lines = csv.trim().split('\r\n');
    // Numbers under the dictionary's names, not the page's formatted text.
    // The answer first (rank, engine, the ranked throughput and its change), then the other metrics.
    expect(lines[0]).toMatch(/^rank,engine,engine_version,output_throughput_per_gpu,output_throughput_per_gpu_lo,output_throughput_per_gpu_hi,output_throughput_change_pct,ttft_ms_p50,ttft_ms_p50_lo,ttft_ms_p50_hi,/);
    expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(sortedEngines.map((cell) => cell.split(/\s+/)[0]));
    const ttftColumn = lines[0]!.split(',').indexOf('ttft_ms_p50');
    // The page shows each to at most 3–4 digits (formatNumber): the CSV's full number rounds to it.
    const exported = lines.slice(1).map((line) => Number(line.split(',')[ttftColumn]));
    exported.forEach((value, i) => expect(Math.abs(value - sorted[i]!)).toBeLessThanOrEqual(0.005 * sorted[i]! + 0.005));
    await page.close();
    await permalink.close();
  });

  it('SLA filter: the page ranks the best throughput within the limits, as the files say (first from its embedded values, then by DuckDB-Wasm); the limits are in the URL', async () => {
    const overview = await open('/', 'overview-sla');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await open(href, 'sla-before');
    const slaRows = async () => {
      await page.locator('table[data-sla-table]').waitFor({ state: 'visible', timeout: 60_000 });
      return (await page.locator('table[data-sla-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!)))).map((cells) => [cells[1]!, cells[3] === '–' ? null : cells[3]!]);
    };
    // A TTFT p95 limit between the engines' values at the highest load: some engines fall back to a lower load or drop out.
    // (p95: the fixture's 64 requests a point support it; its TTFT p99 needs 100 and is never judged against a limit.)
    const ttftAt8 = results.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 8)!.metrics.ttft_ms!.p95).sort((a, b) => a - b);
    const limit = Math.round((ttftAt8[0]! + ttftAt8[ttftAt8.length - 1]!) / 2);
    await page.locator('input[name="ttft_ms_p95"]').fill(String(limit));
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    expect(await slaRows()).toEqual(expectedSla({ ttft_ms_p95: limit }));
    // The first answer did not wait for DuckDB-Wasm: the page computed it from the values it embeds.
    await expect(page.locator('section#sla').getAttribute('data-sla-engine')).resolves.toBe('js');
    expect(new URL(page.url()).searchParams.get('sla.ttft_ms_p95')).toBe(String(limit));
    // The Pareto chart marks every engine version's points against the same limits, and its table says it in words.
    const points = releasePoints();
    const verdicts = (tpotLimit: number) => Object.fromEntries(points.map((p) => [`${p.engine} ${p.version} ${p.load}`, p.ttftP95 <= limit && p.tpotP95 <= tpotLimit ? 'pass' : 'fail']));
    const expectMarks = async (tpotLimit: number) => {
      const expected = verdicts(tpotLimit);
      const marks = await paretoMarks(page);
      expect(marks.chart).toEqual(expected);
      expect(Object.fromEntries(Object.entries(marks.table).map(([k, v]) => [k, v === 'yes' ? 'pass' : v.startsWith('no: ') ? 'fail' : v]))).toEqual(expected);
      return expected;
    };
    const ttftOnly = await expectMarks(Infinity);
    expect(new Set(Object.values(ttftOnly))).toEqual(new Set(['pass', 'fail']));
    await expect(page.locator('figure[data-chart="pareto"] g[data-sla-bound]').getAttribute('display')).resolves.toBe('none');
    await expect(page.locator('[data-pareto-sla-note]').innerText()).resolves.toBe(`${Object.values(ttftOnly).filter((v) => v === 'pass').length} of ${points.length} points meet the SLA limits; the other ${Object.values(ttftOnly).filter((v) => v === 'fail').length} are drawn hollow with a cross.`);
    // A TPOT p95 limit whose bound (1000 ÷ limit, in interactivity) falls mid-range: the dashed line is drawn there,
    // every point left of it fails, and the marks follow the files.
    const xs = points.map((p) => p.interactivity);
    const tpotLimit = Number((1000 / ((Math.min(...xs) + Math.max(...xs)) / 2)).toFixed(3));
    const bound = 1000 / tpotLimit;
    // DuckDB-Wasm has loaded in the background meanwhile: it answers from here on, the same rows and marks.
    await page.locator('section#sla[data-sla-sql="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.locator('input[name="tpot_ms_p95"]').fill(String(tpotLimit));
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.locator('figure[data-chart="pareto"] g[data-sla-bound]:not([display])').waitFor({ state: 'attached', timeout: 60_000 });
    await expect(page.locator('section#sla').getAttribute('data-sla-engine')).resolves.toBe('duckdb');
    expect(await slaRows()).toEqual(expectedSla({ ttft_ms_p95: limit, tpot_ms_p95: tpotLimit }));
    const both = await expectMarks(tpotLimit);
    const geometry = await page.evaluate(() => {
      const figure = document.querySelector('figure[data-chart="pareto"]')!;
      const x = Number(figure.querySelector('g[data-sla-bound] line')!.getAttribute('x1'));
      const px = (g: Element) => Number(g.getAttribute('transform')!.match(/translate\(([-\d.]+),/)![1]);
      return { x, label: figure.querySelector('g[data-sla-bound] text')!.textContent, points: [...figure.querySelectorAll<SVGGElement>('g[data-point]')].map((g) => ({ key: `${g.dataset.engine} ${g.dataset.version} ${g.dataset.load}`, x: px(g) })) };
    });
    expect(geometry.label).toContain(`TPOT p95 ≤ ${formatNumber(tpotLimit)} ms`);
    const pixel = new Map(geometry.points.map((p) => [p.key, p.x]));
    for (const p of points) {
      const key = `${p.engine} ${p.version} ${p.load}`;
      expect(pixel.get(key)! < geometry.x, key).toBe(p.interactivity < bound);
      if (p.interactivity < bound) expect(both[key], key).toBe('fail');
    }
    await expect(page.locator('figure[data-chart="pareto"] [data-sla-key="bound"]').isVisible()).resolves.toBe(true);
    await page.locator('figure[data-chart="pareto"]').screenshot({ path: join(ARTIFACTS, 'pareto-sla.png') });
    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${site.url}${href}${new URL(page.url()).search}`);
    await dark.locator('figure[data-chart="pareto"] g[data-sla-bound]:not([display])').waitFor({ state: 'attached', timeout: 60_000 });
    await dark.locator('figure[data-chart="pareto"]').screenshot({ path: join(ARTIFACTS, 'pareto-sla-dark.png') });
    await dark.close();
    await page.locator('input[name="tpot_ms_p95"]').fill('');
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.locator('figure[data-chart="pareto"] g[data-sla-bound][display="none"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'sla-after.png'), fullPage: true });
    const reloaded = await open(`${href}${new URL(page.url()).search}`, 'sla-permalink');
    await reloaded.locator('table[data-sla-table]').waitFor({ state: 'visible', timeout: 60_000 });
    await expect(reloaded.locator('input[name="ttft_ms_p95"]').inputValue()).resolves.toBe(String(limit));
    await reloaded.close();
    // Tight limits: nobody qualifies, and the table says so rather than showing a number.
    await page.locator('input[name="ttft_ms_p99"]').fill('1');
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.locator('[data-sla-status]', { hasText: '0 of 2 engines' }).waitFor();
    // Nobody qualifies under a TTFT p95 limit at half the lowest value: each engine's row names its newest
    // version's point with the lowest TTFT p95 (the only limit set) and by how much it misses.
    await page.locator('input[name="ttft_ms_p99"]').fill('');
    const newest = expectedSla({}).map(([release]) => release);
    const candidates = points.filter((p) => newest.includes(`${p.engine} ${p.version}`));
    const half = Math.floor(Math.min(...candidates.map((p) => p.ttftP95)) / 2);
    await page.locator('input[name="ttft_ms_p95"]').fill(String(half));
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    // The status read "0 of 2 engines" already: wait for this answer's rows (replaced all at once).
    await page.locator('table[data-sla-table] td[data-closest]', { hasText: `vs ${formatNumber(half)} ms limit` }).first().waitFor();
    const closeness = await page.locator('table[data-sla-table] tbody tr').evaluateAll((trs) => Object.fromEntries(trs.map((tr) => [tr.querySelectorAll('td')[1]!.textContent!, tr.querySelectorAll('td')[2]!.textContent!])));
    expect(closeness).toEqual(
      Object.fromEntries(
        newest.map((release) => {
          const best = candidates.filter((p) => `${p.engine} ${p.version}` === release).sort((a, b) => a.ttftP95 - b.ttftP95)[0]!;
          return [release, `no point meets the limits; closest: ${best.load}, TTFT p95 ${formatNumber(best.ttftP95)} ms vs ${formatNumber(half)} ms limit (+${((best.ttftP95 / half - 1) * 100).toFixed(0)}%)`];
        }),
      ),
    );
    await page.close();
  }, 120_000);

  it('history: a metric selector swaps the prerendered chart, lower-is-better metrics say so, the metric is in the URL', async () => {
    const overview = await open('/', 'overview-history');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await open(href, 'history-before');
    const select = page.locator('select[data-history-metric]');
    await expect(select.inputValue()).resolves.toBe('output_throughput');
    await expect(select.locator('option[value="tpot_ms_p95"]').innerText()).resolves.toBe('TPOT p95 (ms) ↓');
    await expect(select.locator('option[value="output_throughput"]').innerText()).resolves.toBe('Output throughput (tok/s) ↑');
    // TPOT p95: the fixture's 64 requests a point support it (TTFT p99 needs 100 and is not drawn).
    await select.selectOption('tpot_ms_p95');
    expect(new URL(page.url()).searchParams.get('metric')).toBe('tpot_ms_p95');
    const shown = page.locator('figure[data-chart="history"]:visible');
    await expect(shown.count()).resolves.toBe(1);
    await expect(shown.getAttribute('data-metric')).resolves.toBe('tpot_ms_p95');
    await expect(shown.locator('figcaption').innerText()).resolves.toMatch(/^TPOT p95 \(ms\), lower is better ↓, by release at c=8: .*methodology s1\.m1\.exact/);
    await expect(shown.locator('svg[aria-label]').evaluate((svg) => svg.textContent)).resolves.toContain('lower is better');
    // Releases from top to bottom of the chart in the order of their TPOT p95 at c=8 (geometric mean over runs), from the files.
    const versions = releasePoints().filter((p) => p.load === 'c=8').sort((a, b) => b.tpotP95 - a.tpotP95).map((p) => p.version);
    const labels = await shown.locator('svg text').evaluateAll((texts) =>
      texts.filter((t) => /^\d+\.\d+\.\d+$/.test(t.textContent!)).map((t) => [t.textContent!, t.getBoundingClientRect().top] as const),
    );
    expect([...labels].sort((a, b) => a[1] - b[1]).map(([v]) => v)).toEqual(versions);
    await page.screenshot({ path: join(ARTIFACTS, 'history-ttft.png'), fullPage: true });
    // The permalink opens on the same chart; keyboard works on the selector.
    const permalink = await open(`${href}?metric=tpot_ms_p95`, 'history-permalink');
    await expect(permalink.locator('figure[data-chart="history"]:visible').getAttribute('data-metric')).resolves.toBe('tpot_ms_p95');
    await expect(permalink.locator('select[data-history-metric]').inputValue()).resolves.toBe('tpot_ms_p95');
    await permalink.locator('select[data-history-metric]').focus();
    await permalink.keyboard.press('ArrowUp');
    const after = await permalink.locator('select[data-history-metric]').inputValue();
    expect(after).not.toBe('tpot_ms_p95');
    expect(new URL(permalink.url()).searchParams.get('metric')).toBe(after);
    await expect(permalink.locator('figure[data-chart="history"]:visible').getAttribute('data-metric')).resolves.toBe(after);
    await permalink.close();
    await page.close();
  });

  it('regressions list the planted drop and link both runs; a run page shows provenance, the command and the raw file', async () => {
    const page = await open('/regressions/', 'regressions');
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.startsWith('vllm\t1.0.0 → 1.1.0'))).toBe(true);
    expect(rows.some((row) => /Output throughput.*▼ −1\d\.\d% worse/.test(row))).toBe(true);
    // What was checked, as counted from the files: every comparison, how it was tested, what came of it, and when.
    const expected = expectedRegressionCheck();
    expect(expected.comparisons).toBe(expected.welch + expected.noiseBand + expected.untested);
    expect([expected.regressions > 1, expected.untested > 1]).toEqual([true, true]);
    expect(rows.length).toBe(expected.regressions);
    const check = page.locator('section[data-regression-check]');
    await expect(check.locator('[data-count="comparisons"]').innerText()).resolves.toBe(`${expected.comparisons} comparisons`);
    await expect(check.locator('[data-count="tested"]').innerText()).resolves.toMatch(new RegExp(`^${expected.welch + expected.noiseBand} comparisons tested: ${expected.welch} by Welch's t-test \\(both releases repeated\\), ${expected.noiseBand} against`));
    await expect(check.locator('[data-count="untested"]').innerText()).resolves.toMatch(new RegExp(`^${expected.untested} comparisons not testable: `));
    await expect(check.locator('[data-count="outcome"]').innerText()).resolves.toBe(`Of those tested: ${expected.regressions} regressions (significantly worse by 10% or more), 0 significantly worse by less than 10%, 0 significantly better, ${expected.welch + expected.noiseBand - expected.regressions} with no significant change.`);
    await expect(page.locator('caption[data-count="regressions"]').innerText()).resolves.toBe(`${expected.regressions} open regressions`);
    // When: the compile's time (the test compiles "now" as 2026-03-01T00:00Z).
    await expect(check.locator('time[data-checked-at]').getAttribute('datetime')).resolves.toBe('2026-03-01T00:00:00.000Z');
    await expect(check.locator('time[data-checked-at]').innerText()).resolves.toBe('2026-03-01 00:00 UTC');
    await expect(page.locator('main').innerText()).resolves.toContain('significant at p < 0.05');
    await page.locator('tbody tr', { hasText: 'Output throughput' }).first().getByRole('link', { name: 'new' }).click();
    await page.waitForURL(/\/run\/\d{8}T\d{6}Z-[0-9a-f]{8}\/$/);
    const runId = page.url().match(/run\/([^/]+)\//)![1]!;
    const result = results.find((r) => r.run_id === runId)!;
    expect(result.run!.engine.version).toBe('1.1.0');
    // An official run made outside the nightly workflow wears its attestation; a community badge it has not.
    await expect(page.locator('h1').innerText()).resolves.toBe(`Run ${runId} official, unsigned`);
    // The recorded command less what a reader's run may not claim (--source) and the original machine's folder.
    await expect(page.locator('pre code#reproduce').innerText()).resolves.toContain(`\nnpx ${withoutOptions(result.harness.command, ['--source', '--results-dir']).join(' ')}`);
    await expect(page.getByRole('link', { name: /^results\/2026-02-1\d\/vllm\/.*\.json$/ }).getAttribute('href')).resolves.toMatch(/^https:\/\/github\.com\/servebench\/servebench\/blob\/main\/results\/2026-02-1\d\/vllm\//);
    await expect(page.locator('tbody tr').first().innerText()).resolves.toMatch(/^c=1\t64\t64\t0\t512\t128\t/);
    await page.screenshot({ path: join(ARTIFACTS, 'run.png'), fullPage: true });
    await page.close();
  });

  it('downloads are published next to the pages with their checksums; methodology and submit render', async () => {
    const page = await open('/downloads/', 'downloads');
    const links = await page.locator('table a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.some((l) => /\/data\/parquet\/latest\/points\/\d{4}-W\d{2}\.parquet$/.test(l))).toBe(true);
    for (const link of links) expect((await fetch(link)).status, link).toBe(200);
    expect((await fetch(`${site.url}/data/site/releases.arrow`)).status).toBe(200);
    expect((await fetch(`${site.url}/data/result.schema.json`)).status).toBe(200);
    // The examples run as written against the published files (here read from the built folder: DuckDB's
    // httpfs would be fetched from the network), and return rows.
    const examples = Object.fromEntries(await page.locator('pre[data-example]').evaluateAll((pres) => pres.map((pre) => [(pre as HTMLElement).dataset.example!, pre.textContent!])));
    expect(Object.keys(examples).sort()).toEqual(['duckdb-files', 'duckdb-manifest', 'pandas']);
    const builtData = join(root, 'site', 'data');
    const local = (sqlText: string) => sqlText.replaceAll("'/data/", `'${builtData}/`);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const releases = (await duck.runAndReadAll(local(examples['duckdb-files']!))).getRowObjectsJson() as Array<{ engine: string; engine_version: string; output_tok_s: number; runs: string }>;
    expect(releases.length).toBeGreaterThan(0);
    // The same values the site ranks: each release's geometric mean over its runs, from the result files.
    // Every result file the site was compiled from (the fixture and the runs added to it).
    const everyResult = listResultFiles(join(root, 'results')).files.map((f) => JSON.parse(readFileSync(f.absolutePath, 'utf8')) as RunResult);
    const named = (field: string) => examples['duckdb-files']!.match(new RegExp(`\\b${field} = '([^']+)'`))![1]!;
    const [model, workload, load] = [named('model'), named('workload'), named('load')];
    for (const row of releases) {
      const runs = everyResult.filter((r) => r.source === 'official' && r.run!.model.id === model && r.workload.name === workload && r.run!.engine.name === row.engine && r.run!.engine.version === row.engine_version);
      const tputs = runs.flatMap((r) => r.points.filter((p) => p.load.mode === 'closed' && `c=${p.load.concurrency}` === load).map((p) => p.metrics.output_throughput!));
      expect(Number(row.runs), `${row.engine} ${row.engine_version}`).toBe(tputs.length);
      expect(row.output_tok_s).toBeCloseTo(geoMean(tputs), 2);
    }
    await duck.run(local(examples['duckdb-manifest']!).split(';\nSELECT')[0]!);
    const perEngine = (await duck.runAndReadAll(`SELECT${local(examples['duckdb-manifest']!).split(';\nSELECT')[1]!}`)).getRowObjectsJson() as Array<{ points: string }>;
    const manifestFile = JSON.parse(readFileSync(join(builtData, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; rows?: number }> };
    const pointRows = manifestFile.files.filter((f) => f.path.startsWith('parquet/latest/points/')).reduce((sum, f) => sum + (f.rows ?? 0), 0);
    expect(perEngine.reduce((sum, row) => sum + Number(row.points), 0)).toBe(pointRows);
    expect(examples.pandas).toContain('MANIFEST.json');
    duck.closeSync();
    await page.close();
    const methodology = await open('/methodology/', 'methodology');
    await expect(methodology.locator('h1').first().innerText()).resolves.toBe('Methodology');
    // The overview fits the first screen (1280 × 900) and ends with the link to the specification, which follows it whole.
    const link = methodology.locator('[data-overview] a[data-specification-link]');
    await expect(link.getAttribute('href')).resolves.toBe('#specification');
    expect((await link.boundingBox())!.y + (await link.boundingBox())!.height).toBeLessThanOrEqual(900);
    expect((await methodology.locator('#specification').boundingBox())!.y).toBeGreaterThan((await link.boundingBox())!.y);
    await expect(methodology.locator('#specification ~ article h1').innerText()).resolves.toBe('Metrics');
    await expect(methodology.locator('#specification ~ article h2').allInnerTexts()).resolves.toEqual(expect.arrayContaining(['Sample sufficiency', 'Validity', 'Across runs: releases, deltas, cost']));
    // Each overview link lands on a heading of the specification below it.
    const targets = await methodology.locator('[data-overview] a[href^="#"]').evaluateAll((as) => as.map((a) => { const id = a.getAttribute('href')!.slice(1); const target = document.getElementById(id); return [id, target?.tagName ?? null, target !== null && (a.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0] as const; }));
    expect(targets.length).toBeGreaterThan(5);
    for (const [id, tag, following] of targets) expect([id, /^H[1-4]$/.test(String(tag)), following]).toEqual([id, true, true]);
    await expect(methodology.locator('[data-overview]').innerText()).resolves.toMatch(/geometric mean[\s\S]*95% interval[\s\S]*Welch's t-test on log values[\s\S]*paired A\/B/);
    await methodology.close();
    const submit = await open('/submit/', 'submit');
    await expect(submit.locator('h1').innerText()).resolves.toBe('Submit a result');
    await submit.close();
  });

  it('community results: off by default (the pages are the official ones), shown apart with badges by ?community=1 or the switch, never ranked', async () => {
    const page = await open('/', 'home-community-off');
    const shown = page.locator('section[data-config]:visible');
    const ranked = async () => (await shown.locator('[data-config-load="c=8"] table[data-ranking] tbody tr td:nth-child(2)').allInnerTexts()).map((t) => t.split(/\s+/)[0]);
    expect(await ranked()).toEqual(expectedOrderAtC8());
    await expect(page.locator('table[data-community-table]:visible').count()).resolves.toBe(0);
    await expect(page.evaluate(() => document.body.innerText.includes('lmdeploy'))).resolves.toBe(false);
    // The switch shows them under the ranking, with their badges, and says so in the URL; the ranking does not move.
    await page.getByLabel('Show community and unverified results').check();
    expect(new URL(page.url()).searchParams.get('community')).toBe('1');
    const table = shown.locator('[data-config-load="c=8"] table[data-community-table]');
    await expect(table.isVisible()).resolves.toBe(true);
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-engine'), tr.getAttribute('data-version'), [...tr.querySelectorAll('[data-badge]')].map((b) => b.textContent), tr.querySelectorAll('td')[1]!.textContent]));
    expect(rows.sort()).toEqual([['lmdeploy', '1.0.0', ['community'], '1'], ['vllm', '1.1.0', ['community'], '3']]);
    expect(await ranked()).toEqual(expectedOrderAtC8());
    await page.screenshot({ path: join(ARTIFACTS, 'home-community.png'), fullPage: true });
    // Other parameters survive the switch, and a link with ?community=1 opens with it on.
    await page.locator('select[data-field="load"]').selectOption('c=1');
    await page.getByLabel('Show community and unverified results').uncheck();
    expect(new URL(page.url()).searchParams.get('community')).toBeNull();
    expect(new URL(page.url()).searchParams.get('load')).toBe('c=1');
    await page.close();

    const overview = await open('/?community=1', 'home-community-on');
    await expect(overview.getByLabel('Show community and unverified results').isChecked()).resolves.toBe(true);
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const scenario = await open(`${href}?community=1`, 'scenario-community');
    await expect(scenario.locator('section#community').isVisible()).resolves.toBe(true);
    const communityRows = await scenario.locator('section#community tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-engine')} ${tr.querySelectorAll('td')[1]!.textContent}`));
    expect(communityRows.sort()).toEqual(['lmdeploy c=1', 'lmdeploy c=8', 'vllm c=1', 'vllm c=8']);
    expect((await engineColumn(scenario, 'c=8')).map((cell) => cell.split(/\s+/)[0])).toEqual(expectedOrderAtC8());
    // The history table and charts stay official: four releases, one dot each at c=8.
    await expect(scenario.locator('table[data-history-table] tbody tr', { hasText: 'lmdeploy' }).count()).resolves.toBe(0);
    await expect(scenario.locator('figure[data-chart="history"]:visible svg circle').count()).resolves.toBe(4);
    await scenario.close();

    // Compare offers them only with the filter on, named by their badges; the run page wears the badge.
    const compare = await open('/compare/?a=vllm%401.1.0&b=community%3Avllm%401.1.0&community=1', 'compare-community');
    await compare.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const first = await compare.locator('table[data-compare-table] tbody tr').first().evaluate((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!));
    expect(Number(first[2]!.replace(/,/g, '')) / Number(first[1]!.replace(/,/g, ''))).toBeLessThan(0.7);
    await compare.close();
    const plain = await open('/compare/', 'compare-official');
    await expect(plain.locator('select[name="a"] option[value^="community:"]').count()).resolves.toBe(0);
    await plain.close();
    const run = await open(`/run/${community[3]!.run_id}/`, 'run-community');
    await expect(run.locator('h1 [data-badge]').allInnerTexts()).resolves.toEqual(['community']);
    await run.close();
  }, 120_000);

  it('compare: two versions side by side on every shared configuration, from a permalink', async () => {
    const page = await open('/compare/?a=vllm%401.0.0&b=vllm%401.1.0', 'compare');
    await page.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const rows = await page.locator('table[data-compare-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!)));
    expect(rows.map((r) => r[0])).toEqual(['synthetic/llama-8b · bfloat16 · 1× Synthetic H100 · chat · c=1', 'synthetic/llama-8b · bfloat16 · 1× Synthetic H100 · chat · c=8']);
    // Each change says whether it is significant at 95%: 3 runs a side, the planted 15% against 2% noise puts the
    // releases' 95% intervals apart (which implies Welch's p < 0.05), so each metric with a value is worse.
    const runsOf = (engine: string, version: string, concurrency: number) => results.filter((r) => r.run!.engine.name === engine && r.run!.engine.version === version).map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!);
    const verdicts = await page.locator('table[data-compare-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td[data-change]')].map((td) => td.getAttribute('data-verdict'))));
    const counts = new Map(COMPARE_METRICS.map((m) => [m.column, { better: 0, worse: 0, missing: 0 }]));
    for (const [i, concurrency] of [1, 8].entries()) {
      for (const [j, metric] of COMPARE_METRICS.entries()) {
        const [a, b] = [releaseValues(runsOf('vllm', '1.0.0', concurrency), metric.column), releaseValues(runsOf('vllm', '1.1.0', concurrency), metric.column)];
        const cell = rows[i]![3 * j + 3];
        if (!a || !b) {
          expect(cell).toBe('–');
          counts.get(metric.column)!.missing += 1;
          continue;
        }
        const [[loA, hiA], [loB, hiB]] = [tInterval(a), tInterval(b)];
        expect(hiB < loA || hiA < loB, `${metric.column} at c=${concurrency}: intervals apart`).toBe(true);
        const change = geoMean(b) / geoMean(a) - 1;
        const verdict = (metric.better === 'higher') === change > 0 ? 'better' : 'worse';
        expect(cell).toBe(`${formatPercent(change * 100)} ${verdict}`);
        expect(verdicts[i]![j]).toBe(verdict);
        counts.get(metric.column)![verdict] += 1;
      }
    }
    await expect(page.locator('[data-compare-summary] p').innerText()).resolves.toBe('vllm 1.1.0 (B) vs vllm 1.0.0 (A) on 2 shared configurations; changes significant at 95%:');
    const summary = await page.locator('[data-compare-summary] li').allInnerTexts();
    expect(summary).toEqual(COMPARE_METRICS.map((m) => {
      const c = counts.get(m.column)!;
      return `${m.label}: ${c.better} better, ${c.worse} worse, 0 no clear change${c.missing > 0 ? `, ${c.missing} without a value to compare` : ''}`;
    }));
    expect([...counts.values()].reduce((n, c) => n + c.worse, 0)).toBeGreaterThan(0);
    await expect(page.locator('table[data-compare-table] tbody tr').first().locator('td[data-verdict="worse"] span').first().getAttribute('title')).resolves.toMatch(/^vllm 1\.0\.0: .* → vllm 1\.1\.0: .*; p = .*, 95% CI −\d+\.\d% … −\d+\.\d% \(Welch's t-test, runs 3\/3\)$/);
    await expect(page.locator('[data-compare-method]').innerText()).resolves.toContain("Welch's t-test on the log values of the two releases' runs, significant at p < 0.05 (95%)");
    await page.screenshot({ path: join(ARTIFACTS, 'compare.png'), fullPage: true });
    await page.close();

    // One run a side (sglang 2.0.0 and 2.1.0): a change with no spread to test it against is said to be untested, never significant.
    const single = await open('/compare/?a=sglang%402.0.0&b=sglang%402.1.0', 'compare-single-runs');
    await single.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const singleCells = await single.locator('table[data-compare-table] tbody tr[data-b-validity="valid"] td[data-change]').evaluateAll((tds) => tds.map((td) => [td.getAttribute('data-verdict'), td.textContent]));
    expect(singleCells.filter(([verdict]) => verdict !== null).length).toBeGreaterThan(0);
    for (const [verdict, text] of singleCells) expect(verdict === null ? text === '–' : verdict === 'untested' && /^[+−±]\d+\.\d% not tested$/.test(text!)).toBe(true);
    await expect(single.locator('[data-compare-summary] li').first().innerText()).resolves.toMatch(/^Output throughput: 0 better, 0 worse, 0 no clear change, \d+ not tested \(a release with one run\)/);
    await single.close();
  }, 120_000);

  it('works from the keyboard and on a phone-sized screen', async () => {
    const overview = await open('/', 'overview-keyboard');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await page.goto(`${site.url}${href}`);
    await page.screenshot({ path: join(ARTIFACTS, 'phone.png'), fullPage: false });
    // Wide tables scroll inside their own box; the page itself does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const button = page.locator('section[data-load="c=8"] th[data-key="ttft_ms_p50"] button');
    await button.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('section[data-load="c=8"] th[data-key="ttft_ms_p50"]').getAttribute('aria-sort')).resolves.toBe('descending');
    await page.keyboard.press('Enter');
    await expect(page.locator('section[data-load="c=8"] th[data-key="ttft_ms_p50"]').getAttribute('aria-sort')).resolves.toBe('ascending');
    // The leaderboard's answer (rank, engine, ranked throughput, its change) lies inside the phone's screen, whatever the sort.
    const leaderboardAnswers = await page.locator('section[data-load="c=8"] table[data-leaderboard] tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('.answer')].map((cell) => cell.getBoundingClientRect().right)));
    expect(leaderboardAnswers.map((cells) => cells.length)).toEqual(leaderboardAnswers.map(() => 4));
    for (const cells of leaderboardAnswers) for (const right of cells) expect(right).toBeLessThanOrEqual(390);
    await page.close();
    // At 1280 px the whole leaderboard fits its column: nothing to scroll sideways.
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await desktop.goto(`${site.url}${href}`);
    const board = desktop.locator('section[data-load="c=8"] .table-wrap').first();
    await desktop.screenshot({ path: join(ARTIFACTS, 'scenario-desktop.png'), fullPage: false });
    const [scrollWidth, clientWidth] = await board.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    await desktop.close();
    // The home's answer on a 375 px phone: each ranked row's rank, engine, headline throughput and change lie inside
    // the screen without scrolling sideways; the other columns follow in the table's own scroll box.
    const home = await browser.newPage({ viewport: { width: 375, height: 812 }, isMobile: true });
    await home.goto(`${site.url}/`);
    await home.locator('section[data-config]:visible [data-config-load]:visible table[data-ranking]').scrollIntoViewIfNeeded();
    await home.screenshot({ path: join(ARTIFACTS, 'home-phone.png'), fullPage: false });
    expect(await home.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const answers = await home.locator('section[data-config]:visible [data-config-load]:visible table[data-ranking] tbody tr').evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td.answer')].map((td) => ({ text: td.textContent!.trim(), right: td.getBoundingClientRect().right, width: td.getBoundingClientRect().width }))),
    );
    expect(answers.length).toBeGreaterThan(0);
    for (const cells of answers) {
      expect(cells.map((c) => c.text.length > 0)).toEqual([true, true, true, true]);
      for (const cell of cells) expect(cell.right, cell.text).toBeLessThanOrEqual(375);
    }
    await home.close();
  });

  it('home: the first screen ranks the engines with spread and delta, shows capacity at the SLA tiers and what changed, without a click', async () => {
    const page = await open('/', 'home');
    const shown = page.locator('section[data-config]:visible');
    await expect(shown.count()).resolves.toBe(1);
    // The default configuration has the most engines (chat: both engines' releases), at its highest load.
    await expect(shown.locator('h2').innerText()).resolves.toBe('synthetic/llama-8b · bfloat16 · 1× Synthetic H100 · chat');
    const ranking = shown.locator('[data-config-load="c=8"] table[data-ranking]');
    const box = (await ranking.boundingBox())!;
    expect(box.y).toBeLessThan(900);
    const rows = await ranking.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim().replace(/\s+/g, ' '))));
    expect(rows.map((r) => r[1]!.split(' ')[0])).toEqual(expectedOrderAtC8());
    expect(rows.map((r) => r[0])).toEqual(['1', '2']);
    // vllm 1.1.0 has three runs: its throughput shows the 95% t-interval of the log values; sglang 2.1.0 one run, marked so.
    const tputs = results.filter((r) => r.run!.engine.name === 'vllm' && r.run!.engine.version === '1.1.0').map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 8)!.metrics.output_throughput!);
    const [lo, hi] = tInterval(tputs);
    const vllm = rows.find((r) => r[1]!.startsWith('vllm'))!;
    // Each throughput says what it was measured over: the fixture's points have no steady window.
    expect(vllm[2]).toBe(`${formatNumber(geoMean(tputs))} (${formatNumber(lo)}–${formatNumber(hi)}) whole run`);
    expect(vllm[3]).toMatch(/^▼ −1\d\.\d% worse vs 1\.0\.0$/);
    await expect(ranking.locator('tr[data-engine="vllm"] td[data-change] span').first().getAttribute('class')).resolves.toBe('delta-worse');
    const sglang = rows.find((r) => r[1]!.startsWith('sglang'))!;
    expect(sglang[2]).toMatch(/^[\d,.]+ 1 run whole run$/);
    await expect(ranking.locator('tr[data-engine="sglang"] small.spread.single').first().getAttribute('title')).resolves.toBe('A single run: no interval');
    expect(sglang[3]).toMatch(/no clear change vs 2\.0\.0$/);
    // Capacity at the tiers, from the result files and the compiled tier file: the best measured point meeting both limits.
    const tiers = JSON.parse(readFileSync(join(root, 'data', 'site', 'sla-tiers.json'), 'utf8')) as { tiers: Array<{ id: string; limits: { ttft_ms_p95: number; tpot_ms_p95: number } }> };
    expect(tiers.tiers.map((t) => t.id)).toEqual(['interactive', 'standard', 'batch']);
    const capacity = shown.locator('table[data-capacity-table]');
    await expect(capacity.isVisible()).resolves.toBe(true);
    for (const [engine, version] of [['vllm', '1.1.0'], ['sglang', '2.1.0']] as const) {
      for (const tier of tiers.tiers) {
        const cell = (await capacity.locator(`tr[data-engine="${engine}"] td[data-tier="${tier.id}"]`).innerText()).replace(/\s+/g, ' ').trim();
        const best = expectedCapacity(results, engine, version, [1, 8], tier.limits);
        if (best === null) expect(cell, `${engine} ${tier.id}`).toBe('no point meets it');
        else expect(cell, `${engine} ${tier.id}`).toMatch(new RegExp(`^${formatNumber(best.throughput).replace(/[.,]/g, '\\$&')} .*tok/s/GPU at ${best.load} · \\$[\\d.]+ per 1M tokens$`));
      }
    }
    // What changed since the window's start: the new releases, the planted regression under "Worse", the failed run.
    const changes = JSON.parse(readFileSync(join(root, 'data', 'site', 'changes.json'), 'utf8')) as { new_releases: Array<{ engine: string; engine_version: string }>; changes: Array<{ engine: string; verdict: string }> };
    const aside = page.locator('aside.what-changed');
    await expect(aside.isVisible()).resolves.toBe(true);
    expect((await aside.locator('[data-new-releases] li').allInnerTexts()).map((t) => t.split(' first run')[0])).toEqual(changes.new_releases.map((r) => `${r.engine} ${r.engine_version}`));
    expect(changes.changes.some((d) => d.engine === 'vllm' && d.verdict === 'worse')).toBe(true);
    // One item per release and configuration, throughput first, each metric once at the load where it moved most.
    await expect(aside.locator('[data-changes="worse"] li').count()).resolves.toBe(1);
    await expect(aside.locator('[data-changes="worse"] li').first().innerText()).resolves.toMatch(/^vllm 1\.0\.0 → 1\.1\.0 synthetic\/llama-8b · bfloat16 · 1× Synthetic H100 · chat\s+Output throughput ▼ −1\d\.\d% at c=\d · .* · \d+ more metrics$/);
    const failure = aside.locator('[data-failed-runs] li').first();
    await expect(failure.innerText()).resolves.toMatch(/^vllm 1\.1\.0 · failed in launch: CUDA out of memory while loading the weights/);
    await failure.locator('a').click();
    await page.waitForURL(new RegExp(`/run/${failed.run_id}/$`));
    await expect(page.locator('h1').innerText()).resolves.toBe(`Run ${failed.run_id} official, unsigned`);
    await page.close();
  });

  it('home: the filter picks a configuration and a load from the keyboard, keeps them in the URL, and a link reopens them', async () => {
    const page = await open('/', 'home-filter');
    const workload = page.locator('select[data-field="workload"]');
    await workload.focus();
    await page.keyboard.press('ArrowDown');
    await expect(workload.inputValue()).resolves.toBe('summarize');
    const shown = page.locator('section[data-config]:visible');
    await expect(shown.locator('h2').innerText()).resolves.toBe('synthetic/llama-8b · bfloat16 · 1× Synthetic H100 · summarize');
    expect(await page.locator('select[data-field="load"] option').allInnerTexts()).toEqual(['c=2', 'c=4']);
    await expect(page.locator('select[data-field="load"]').inputValue()).resolves.toBe('c=4');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowUp');
    await expect(page.locator('select[data-field="load"]').inputValue()).resolves.toBe('c=2');
    await expect(shown.locator('[data-config-load="c=2"]').isVisible()).resolves.toBe(true);
    await expect(shown.locator('[data-config-load="c=4"]').isVisible()).resolves.toBe(false);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ model: 'synthetic/llama-8b', precision: 'bfloat16', hardware: '1x-Synthetic H100', workload: 'summarize', load: 'c=2' });
    // The engines at c=2 by their throughput per GPU in the files (one run each), but vllm's newest (1.2.0) missed the cache there: after the ranked, unranked.
    const expected = extra.map((r) => [r.run!.engine.name, r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 2)!.metrics.output_throughput!] as const).sort((a, b) => b[1] - a[1]).map(([e]) => e);
    expect((await shown.locator('[data-config-load="c=2"] tbody tr td:nth-child(2)').allInnerTexts()).map((t) => t.split(/\s+/)[0])).toEqual([...expected.filter((e) => e !== 'vllm'), 'vllm']);
    const again = await open(`/${url.search}`, 'home-filter-permalink');
    await expect(again.locator('section[data-config]:visible h2').innerText()).resolves.toBe('synthetic/llama-8b · bfloat16 · 1× Synthetic H100 · summarize');
    await expect(again.locator('select[data-field="load"]').inputValue()).resolves.toBe('c=2');
    await again.close();
    await page.close();
  });

  /** The Reproduce block a run's page must show, made here from the result file on its own. */
  const expectedBlock = (run: RunResult) => [
    'git clone https://github.com/servebench/servebench.git servebench && cd servebench',
    `git checkout ${run.harness.git_commit}`,
    'npm ci',
    // The recorded command without its machine-local --results-dir and the --source a reader's run may not claim.
    `npx ${withoutOptions(run.harness.command, ['--source', '--results-dir']).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}`,
  ].join('\n');

  it('a run page reproduces the run: one shell-quoted block for the exact commit, copied by its button', async () => {
    // The latest run of vllm 1.1.0: the one its rows link to (every run a page links to has a page).
    const run = results.filter((r) => r.run!.engine.name === 'vllm' && r.run!.engine.version === '1.1.0').sort((a, b) => b.created_at.localeCompare(a.created_at))[0]!;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${site.url}/run/${run.run_id}/`);
    const block = await page.locator('pre.command code#reproduce').innerText();
    expect(block).toBe(expectedBlock(run));
    // The clipboard takes text only from the focused document.
    await page.bringToFront();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.waitForFunction(() => (document.querySelector('[data-copy-status]')?.textContent ?? '') !== '', null, { timeout: 10_000 });
    await expect(page.locator('[data-copy-status]').innerText()).resolves.toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(block);
    await context.close();
  });

  /** SYNTHETIC fixture runs with points that compile gave no prerendered page (no page links them): the lookup page's case. */
  const unpagedRuns = () => {
    const prerendered = new Set(readdirSync(join(root, 'data', 'site', 'runs')).map((f) => f.replace(/\.json$/, '')));
    const files = listResultFiles(join(root, 'results')).files.map((f) => ({ file: f.relativePath, text: readFileSync(f.absolutePath, 'utf8') }));
    return { prerendered, unpaged: files.map((f) => ({ ...f, result: JSON.parse(f.text) as RunResult })).filter((f) => !prerendered.has(f.result.run_id) && f.result.points.length > 1) };
  };

  it('run links: every run link of the home and scenario pages opens a page (prerendered, else /run/?id=); the lookup page sends a prerendered id to its page and passes axe', async () => {
    const { prerendered, unpaged } = unpagedRuns();
    expect([prerendered.size > 0, unpaged.length > 0]).toEqual([true, true]);
    const home = await open('/', 'run-links-home');
    const scenario = `${site.url}${(await home.locator('#scenarios a').first().getAttribute('href'))!}`;
    // Chart marks are SVG links: their href attribute, resolved as the browser would.
    const links = new Set(await home.locator('a[href*="/run/"]').evaluateAll((as) => as.map((a) => new URL(a.getAttribute('href')!, document.baseURI).href)));
    await home.goto(scenario);
    for (const href of await home.locator('a[href*="/run/"]').evaluateAll((as) => as.map((a) => new URL(a.getAttribute('href')!, document.baseURI).href))) links.add(href);
    expect(links.size).toBeGreaterThan(0);
    for (const href of links) {
      expect([href, (await fetch(href)).status]).toEqual([href, 200]);
      // A link names the prerendered page exactly when compile wrote one.
      const id = /\/run\/(?:\?id=)?([^/]+)\/?$/.exec(new URL(href).pathname + new URL(href).search)![1]!;
      expect([id, new URL(href).search === '' ? 'page' : 'lookup']).toEqual([id, prerendered.has(id) ? 'page' : 'lookup']);
    }
    await home.close();
    const paged = [...prerendered][0]!;
    const redirected = await open(`/run/?id=${paged}`, 'run-lookup-redirect');
    await redirected.waitForURL(`${site.url}/run/${paged}/`);
    await expect(redirected.locator('h1').innerText()).resolves.toMatch(new RegExp(`^Run ${paged}`));
    await redirected.close();
    const lookup = await open(`/run/?id=${unpaged[0]!.result.run_id}`, 'run-lookup');
    await lookup.waitForFunction(() => document.getElementById('run-lookup')?.dataset.lookup !== 'pending', null, { timeout: 60_000 });
    await expect(lookup.locator('h1').innerText()).resolves.toBe(`Run ${unpaged[0]!.result.run_id}`);
    const axe = readFileSync(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    await lookup.addScriptTag({ content: axe });
    const found = (await lookup.evaluate(async () => (await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe.run()).violations)) as Array<{ id: string; impact: string }>;
    expect(found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await lookup.close();
  }, 120_000);

  it('a run without a prerendered page: /run/?id= reads it from the published Parquet as its file says; an unknown id says so', async () => {
    const { unpaged } = unpagedRuns();
    const { file, text, result } = unpaged[0]!;
    const page = await open(`/run/?id=${result.run_id}`, 'run-lookup-found');
    await page.waitForFunction(() => document.getElementById('run-lookup')?.dataset.lookup !== 'pending', null, { timeout: 60_000 });
    await expect(Promise.all([page.locator('#run-lookup').getAttribute('data-lookup'), page.locator('[data-lookup-status]').innerText()])).resolves.toEqual(['found', `Read from the published Parquet files: ${result.points.length} load points.`]);
    const provenance = async (key: string) => page.locator(`table[data-provenance] tr[data-key="${key}"] td`).innerText();
    await expect(provenance('engine')).resolves.toBe(result.run!.engine.name);
    await expect(provenance('engine_version')).resolves.toBe(result.run!.engine.version);
    await expect(provenance('file')).resolves.toBe(file);
    await expect(provenance('file_sha256')).resolves.toBe(createHash('sha256').update(text).digest('hex'));
    await expect(page.getByRole('link', { name: `results/${file}` }).getAttribute('href')).resolves.toBe(`https://github.com/servebench/servebench/blob/main/results/${file}`);
    // Every point, in the file's order, with its output throughput as the file says it.
    await expect(page.locator('tbody tr[data-validity] td[data-column="output_throughput"]').allInnerTexts()).resolves.toEqual(result.points.map((p) => formatNumber(p.metrics.output_throughput)));
    // The Reproduce block as a prerendered page shows it, from the published reproduce_line; its button copies it (or selects it where the clipboard is closed).
    await expect(page.locator('pre.command code#reproduce').innerText()).resolves.toBe(expectedBlock(result));
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.waitForFunction(() => (document.querySelector('[data-copy-status]')?.textContent ?? '') !== '', null, { timeout: 10_000 });
    await expect(page.locator('[data-copy-status]').innerText()).resolves.toMatch(/^(Copied\.|Selected: press Ctrl\+C \(⌘C\) to copy\.)$/);
    await page.close();
    const unknown = await open('/run/?id=20990101T000000Z-0badf00d', 'run-lookup-unknown');
    await unknown.waitForFunction(() => document.getElementById('run-lookup')?.dataset.lookup !== 'pending', null, { timeout: 60_000 });
    await expect(unknown.getByRole('status').innerText()).resolves.toBe('No run 20990101T000000Z-0badf00d in the published data.');
    await unknown.close();
  }, 120_000);

  it('every page type passes axe (no serious or critical violation) at a desktop and a phone width, with screenshots', async () => {
    const run = [...results].sort((a, b) => b.created_at.localeCompare(a.created_at))[0]!;
    const overview = await open('/', 'axe-overview');
    const scenario = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const pages = { home: '/', 'home-community': '/?community=1', scenario, 'scenario-community': `${scenario}?community=1`, run: `/run/${run.run_id}/`, 'run-community': `/run/${community[3]!.run_id}/`, 'run-failed': `/run/${failed.run_id}/`, regressions: '/regressions/', compare: '/compare/?a=vllm%401.0.0&b=vllm%401.1.0', downloads: '/downloads/', methodology: '/methodology/', submit: '/submit/' };
    const axe = readFileSync(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    const violations: string[] = [];
    for (const [width, height, label] of [[1280, 900, 'desktop'], [375, 812, 'phone']] as const) {
      for (const [name, path] of Object.entries(pages)) {
        const page = await browser.newPage({ viewport: { width, height }, isMobile: label === 'phone' });
        page.on('pageerror', (error) => consoleErrors.push(`${path}: ${error.message}`));
        expect((await page.goto(`${site.url}${path}`))?.status(), path).toBe(200);
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: join(ARTIFACTS, `${label}-${name}.png`), fullPage: true });
        if (label === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(375);
        await page.addScriptTag({ content: axe });
        const found = (await page.evaluate(async () => (await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run()).violations)) as Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
        for (const v of found) if (v.impact === 'serious' || v.impact === 'critical') violations.push(`${label} ${name}: ${v.impact} ${v.id} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
        await page.close();
      }
    }
    expect(violations).toEqual([]);
  }, 180_000);

  it('the SLA form works from the keyboard alone', async () => {
    const overview = await open('/', 'keyboard-sla-overview');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await open(href, 'keyboard-sla');
    // TTFT p95: supported by the fixture's 64 requests a point (a p99 limit could be met by none: its p99 is never judged).
    await page.locator('input[name="ttft_ms_p95"]').focus();
    await page.keyboard.type('100000');
    await page.keyboard.press('Enter');
    await page.locator('table[data-sla-table]').waitFor({ state: 'visible', timeout: 60_000 });
    await expect(page.locator('[data-sla-status]').innerText()).resolves.toBe('2 of 2 engines meet the limits.');
    // Tab order reaches the Apply button right after the inputs.
    const focusables = await page.evaluate(() => [...document.querySelectorAll('form[data-sla-form] input, form[data-sla-form] button')].map((el) => (el as HTMLElement).tabIndex));
    expect(focusables.every((t) => t >= 0)).toBe(true);
    await page.close();
  }, 120_000);

  it('every page type states its lane from the data: the GPU fixture and the committed CPU lane, which never says per GPU', async () => {
    const run = [...results].sort((a, b) => b.created_at.localeCompare(a.created_at))[0]!;
    const overview = await open('/', 'lane-overview');
    const scenario = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const pageTypes = (runId: string, scenarioPath: string) => ({ home: '/', scenario: scenarioPath, run: `/run/${runId}/`, regressions: '/regressions/', compare: '/compare/', downloads: '/downloads/', methodology: '/methodology/' });
    // The SYNTHETIC fixture: one GPU, a host that recorded no virtualization, published weights (no model file made by servebench).
    for (const [name, path] of Object.entries(pageTypes(run.run_id, scenario))) {
      const page = await open(path, `lane-gpu-${name}`);
      await expect(page.locator('[data-lane-line] p').allInnerTexts(), name).resolves.toEqual([expect.stringMatching(/^GPU lane: 1× Synthetic H100 \(host: 64 logical CPUs Synthetic CPU, virtualization not recorded\), published model weights, engines: .*vllm/)]);
      await page.close();
    }
    // The committed CPU lane (real results), compiled and built on its own.
    const cpuRoot = mkdtempSync(join(tmpdir(), 'servebench-cpu-site-'));
    await compile({ resultsDir: join(REPO, 'results'), outDir: join(cpuRoot, 'data'), prices: loadPrices(), now: new Date('2026-12-03T00:00:00Z') });
    await buildSite({ SERVEBENCH_DATA: join(cpuRoot, 'data'), SERVEBENCH_SITE_OUT: join(cpuRoot, 'site'), SERVEBENCH_REPO_URL: 'https://github.com/servebench/servebench' });
    const cpuSite = await serveStatic(join(cpuRoot, 'site'));
    try {
      const lanes = JSON.parse(readFileSync(join(cpuRoot, 'data', 'site', 'lanes.json'), 'utf8')) as Array<{ label: string }>;
      const cpuRun = (JSON.parse(readFileSync(join(cpuRoot, 'data', 'site', 'leaderboard.json'), 'utf8')) as Array<{ latest_run_id: string }>)[0]!.latest_run_id;
      const home = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await home.goto(`${cpuSite.url}/`);
      const cpuScenario = (await home.locator('#scenarios a').first().getAttribute('href'))!;
      await home.close();
      for (const [name, path] of Object.entries(pageTypes(cpuRun, cpuScenario))) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        page.on('pageerror', (error) => consoleErrors.push(`cpu ${path}: ${error.message}`));
        await page.goto(`${cpuSite.url}${path}`);
        await page.screenshot({ path: join(ARTIFACTS, `lane-cpu-${name}.png`), fullPage: true });
        const lines = await page.locator('[data-lane-line] p').allInnerTexts();
        // The steal figures are the committed runs' own (tests/store/lane.test.ts checks them against the files).
        expect(lines, name).toEqual([expect.stringMatching(/^CPU lane: 2 vCPU AMD EPYC \(KVM guest, CPU steal median \d+(\.\d+)?%, max \d+(\.\d+)?%\), dummy-weight models .*engines on the CPU: embedded, llamacpp/)]);
        expect(lines[0]!.startsWith(lanes[0]!.label), name).toBe(true);
        // The methodology explains "per GPU" for GPU lanes; every page with the lane's numbers says per host.
        if (name !== 'methodology') expect(await page.locator('body').innerText(), name).not.toMatch(/per GPU|tok\/s\/GPU/);
        if (name === 'home' || name === 'scenario' || name === 'run') expect(await page.locator('main').innerText(), name).toContain('2 vCPU AMD EPYC (KVM)');
        if (name === 'scenario') await expect(page.locator('#h-pareto').innerText()).resolves.toBe('Throughput per host vs interactivity');
        await page.close();
      }
    } finally {
      await cpuSite.close();
    }
  }, 300_000);

  it('validity: a point with a cache mismatch is greyed with its reason, never ranked, and each page counts what it excluded', async () => {
    const missedThroughput = cacheMissed.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 2)!.metrics.output_throughput!;
    // It is the fastest at c=2 in the files, and still not ranked.
    for (const r of extra) expect(missedThroughput).toBeGreaterThan(r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 2)!.metrics.output_throughput!);
    const home = await open(`/?${new URLSearchParams({ model: 'synthetic/llama-8b', precision: 'bfloat16', hardware: '1x-Synthetic H100', workload: 'summarize', load: 'c=2' })}`, 'validity-home');
    const table = home.locator('section[data-config]:visible [data-config-load="c=2"]');
    const row = table.locator('tbody tr[data-engine="vllm"]');
    await expect(row.getAttribute('data-validity')).resolves.toBe('cache_mismatch');
    await expect(row.locator('td').first().innerText()).resolves.toBe('–');
    await expect(row.locator('[data-validity-badge]').innerText()).resolves.toBe('cache mismatch');
    await expect(row.locator('[data-validity-badge]').getAttribute('title')).resolves.toBe('the server reused 4% of the prompt tokens where a perfect prefix cache reuses 50%');
    // Greyed: its cells take the muted colour, a valid row's do not.
    const colour = (selector: string) => table.locator(selector).locator('td').nth(2).evaluate((td) => getComputedStyle(td).color);
    expect(await colour('tbody tr[data-engine="vllm"]')).not.toBe(await colour('tbody tr[data-validity="valid"] >> nth=0'));
    await expect(table.locator('tbody tr[data-validity="valid"] td:first-child').allInnerTexts()).resolves.toEqual(['1']);
    const note = table.locator('details[data-excluded]');
    await expect(note.locator('summary').innerText()).resolves.toMatch(/^1 point excluded: 1 cache mismatch/);
    await note.locator('summary').click();
    await expect(note.locator('li').allInnerTexts()).resolves.toEqual([expect.stringMatching(/^vllm 1\.2\.0 at c=2: cache mismatch, the server reused 4%/)]);
    // c=4 of the same run is valid: ranked, and its table excludes nothing.
    await expect(home.locator('section[data-config]:visible [data-config-load="c=4"] tbody tr[data-engine="vllm"]').getAttribute('data-validity')).resolves.toBe('valid');
    await expect(home.locator('section[data-config]:visible [data-config-load="c=4"] details[data-excluded]').count()).resolves.toBe(0);
    // The scenario page: the row greyed with its badge, the count under the table.
    const href = (await home.locator('section[data-config]:visible a[href*="/scenario/"]').first().getAttribute('href'))!;
    await home.close();
    const scenario = await open(`${href}?load=c%3D2`, 'validity-scenario');
    const section = scenario.locator('section[data-load="c=2"]');
    await expect(section.locator('tbody tr[data-validity="cache_mismatch"] [data-validity-badge]').innerText()).resolves.toBe('cache mismatch');
    await expect(section.locator('details[data-excluded] summary').innerText()).resolves.toMatch(/^1 point excluded: 1 cache mismatch/);
    await scenario.close();
    // The run page: the point greyed with its reason, the other not, and the count.
    const run = await open(`/run/${cacheMissed.run_id}/`, 'validity-run');
    await expect(run.locator('tbody tr[data-validity]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-validity')))).resolves.toEqual(['cache_mismatch', 'valid']);
    await expect(run.locator('details[data-excluded] summary').innerText()).resolves.toMatch(/^1 point excluded: 1 cache mismatch/);
    await run.close();
  });

  it('made no request to another host and logged no console error', () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
