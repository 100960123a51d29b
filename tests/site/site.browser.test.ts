/**
 * The built site in a real browser (Debian's chromium through playwright-core): the SYNTHETIC
 * fixture of tests/store is compiled, the site built from it and served on 127.0.0.1, then each
 * page type is opened. Rankings are checked against the result files themselves. No request may
 * leave the site's own host, and no console error may appear. Screenshots go to test-artifacts/.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { RunResult } from '../../harness/schema/result.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';
import { serveStatic } from '../../scripts/static-server.ts';
import { formatPercent } from '../../site/lib/format.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(REPO, 'test-artifacts', 'site');
const root = mkdtempSync(join(tmpdir(), 'servebench-site-'));
let results: RunResult[] = [];
let site: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
const foreignRequests: string[] = [];
const consoleErrors: string[] = [];

function build(env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(REPO, 'node_modules/astro/bin/astro.mjs'), 'build'], { cwd: REPO, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env }, timeout: 180_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`astro build failed: ${stderr}`)) : resolve(),
    );
  });
}

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
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const resultsDir = join(root, 'results');
  results = writeFixture(resultsDir).map((p) => JSON.parse(readFileSync(join(resultsDir, p), 'utf8')) as RunResult);
  await compile({ resultsDir, outDir: join(root, 'data'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  await build({ SERVEBENCH_DATA: join(root, 'data'), SERVEBENCH_SITE_OUT: join(root, 'site'), SERVEBENCH_REPO_URL: 'https://github.com/servebench/servebench' });
  site = await serveStatic(join(root, 'site'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Engines at c=8 by the median output throughput of their newest version's runs (from the files). */
function expectedOrderAtC8(): string[] {
  const newest = new Map<string, { version: string; values: number[] }>();
  for (const r of results) {
    const engine = r.run!.engine.name;
    const version = r.run!.engine.version!;
    const value = r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 8)!.metrics.output_throughput!;
    const current = newest.get(engine);
    if (!current || version > current.version) newest.set(engine, { version, values: [value] });
    else if (version === current.version) current.values.push(value);
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return [...newest.entries()].sort((a, b) => median(b[1].values) - median(a[1].values)).map(([engine]) => engine);
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The SLA-throughput frontier computed from the result files, independently of the site's SQL. */
function expectedSla(limits: { ttft_ms_p99?: number; tpot_ms_p95?: number }): Array<[string, string | null]> {
  const newest = new Map<string, string>();
  for (const r of results) if ((newest.get(r.run!.engine.name) ?? '') < r.run!.engine.version!) newest.set(r.run!.engine.name, r.run!.engine.version!);
  const rows: Array<[string, number | null, string | null]> = [];
  for (const [engine, version] of newest) {
    const runs = results.filter((r) => r.run!.engine.name === engine && r.run!.engine.version === version);
    let best: [number, string] | null = null;
    for (const concurrency of [1, 8]) {
      const points = runs.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!.metrics);
      const ttft = median(points.map((m) => m.ttft_ms!.p99));
      const tpot = median(points.map((m) => m.tpot_ms!.p95));
      const throughput = median(points.map((m) => m.output_throughput!));
      if (ttft <= (limits.ttft_ms_p99 ?? Infinity) && tpot <= (limits.tpot_ms_p95 ?? Infinity) && (best === null || throughput > best[0])) best = [throughput, `c=${concurrency}`];
    }
    rows.push([`${engine} ${version}`, best?.[0] ?? null, best?.[1] ?? null]);
  }
  rows.sort((a, b) => (b[1] ?? -1) - (a[1] ?? -1));
  return rows.map(([engine, , load]) => [engine, load]);
}

const engineColumn = (page: Page, load: string) => page.locator(`section[data-load="${load}"] table tbody tr td:nth-child(2)`).allInnerTexts();

describe('the site in Chromium', () => {
  it('overview lists the configuration and links to its leaderboard', async () => {
    const page = await open('/', 'overview');
    await expect(page.locator('#scenarios tbody tr').count()).resolves.toBe(1);
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
    // The Pareto chart is static SVG from Observable Plot: one dot per newest-version point (2 engines × 2 loads).
    await expect(page.locator('figure.chart svg').first().isVisible()).resolves.toBe(true);
    await expect(page.locator('figure[data-chart="pareto"] svg circle').count()).resolves.toBeGreaterThanOrEqual(4);
    // History: one dot per release at the highest load (vllm 1.0.0, 1.1.0; sglang 2.0.0, 2.1.0).
    await expect(page.locator('figure[data-chart="history"] svg circle').count()).resolves.toBe(4);
    const vllmDelta = page.locator('section[data-load="c=8"] tr', { hasText: 'vllm' }).locator('td').last();
    await expect(vllmDelta.innerText()).resolves.toMatch(/^▼ −1\d\.\d% worse$/);
    await expect(vllmDelta.locator('span').getAttribute('class')).resolves.toBe('delta-worse');
    await expect(vllmDelta.locator('span').getAttribute('title')).resolves.toMatch(/^1\.0\.0: .* → 1\.1\.0: .*Welch/);

    await page.locator('a[data-load-link="c=1"]').click();
    await expect(page.locator('section[data-load="c=1"]').isVisible()).resolves.toBe(true);
    await page.locator('section[data-load="c=1"] th[data-key="ttft_ms_p50"] button').click();
    await page.locator('section[data-load="c=1"] th[data-key="ttft_ms_p50"] button').click();
    expect(new URL(page.url()).search).toBe('?load=c%3D1&sort=ttft_ms_p50&dir=asc');
    const ttft = async () => (await page.locator('section[data-load="c=1"] tbody td:nth-child(3)').allInnerTexts()).map(Number);
    const sorted = await ttft();
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b));
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
    expect(lines[0]).toMatch(/^Rank,Engine,TTFT p50 ms,/);
    expect(lines.slice(1).map((line) => line.split(',')[1]!.split(' ')[0])).toEqual(sortedEngines.map((cell) => cell.split(/\s+/)[0]));
    await page.close();
    await permalink.close();
  });

  it('SLA filter: DuckDB-Wasm in the page ranks the best throughput within the limits, as the files say; the limits are in the URL', async () => {
    const overview = await open('/', 'overview-sla');
    const href = (await overview.locator('#scenarios a').first().getAttribute('href'))!;
    await overview.close();
    const page = await open(href, 'sla-before');
    const slaRows = async () => {
      await page.locator('table[data-sla-table]').waitFor({ state: 'visible', timeout: 60_000 });
      return (await page.locator('table[data-sla-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!)))).map((cells) => [cells[1]!, cells[3] === '–' ? null : cells[3]!]);
    };
    // A TTFT p99 limit between the engines' values at the highest load: some engines fall back to a lower load or drop out.
    const ttftAt8 = results.map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 8)!.metrics.ttft_ms!.p99).sort((a, b) => a - b);
    const limit = Math.round((ttftAt8[0]! + ttftAt8[ttftAt8.length - 1]!) / 2);
    await page.locator('input[name="ttft_ms_p99"]').fill(String(limit));
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    expect(await slaRows()).toEqual(expectedSla({ ttft_ms_p99: limit }));
    expect(new URL(page.url()).searchParams.get('sla.ttft_ms_p99')).toBe(String(limit));
    await page.screenshot({ path: join(ARTIFACTS, 'sla-after.png'), fullPage: true });
    const reloaded = await open(`${href}${new URL(page.url()).search}`, 'sla-permalink');
    await reloaded.locator('table[data-sla-table]').waitFor({ state: 'visible', timeout: 60_000 });
    await expect(reloaded.locator('input[name="ttft_ms_p99"]').inputValue()).resolves.toBe(String(limit));
    await reloaded.close();
    // Tight limits: nobody qualifies, and the table says so rather than showing a number.
    await page.locator('input[name="ttft_ms_p99"]').fill('1');
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.locator('[data-sla-status]', { hasText: '0 of 2 engines' }).waitFor();
    await page.close();
  }, 120_000);

  it('regressions list the planted drop and link both runs; a run page shows provenance, the command and the raw file', async () => {
    const page = await open('/regressions/', 'regressions');
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.startsWith('vllm\t1.0.0 → 1.1.0'))).toBe(true);
    expect(rows.some((row) => /Output throughput.*▼ −1\d\.\d% worse/.test(row))).toBe(true);
    await page.locator('tbody tr', { hasText: 'Output throughput' }).first().getByRole('link', { name: 'new' }).click();
    await page.waitForURL(/\/run\/\d{8}T\d{6}Z-[0-9a-f]{8}\/$/);
    const runId = page.url().match(/run\/([^/]+)\//)![1]!;
    const result = results.find((r) => r.run_id === runId)!;
    expect(result.run!.engine.version).toBe('1.1.0');
    await expect(page.locator('h1').innerText()).resolves.toBe(`Run ${runId}`);
    await expect(page.locator('pre code').first().innerText()).resolves.toBe(result.harness.command.join(' '));
    await expect(page.getByRole('link', { name: /^results\/2026-02-1\d\/vllm\/.*\.json$/ }).getAttribute('href')).resolves.toMatch(/^https:\/\/github\.com\/servebench\/servebench\/blob\/main\/results\/2026-02-1\d\/vllm\//);
    await expect(page.locator('tbody tr').first().innerText()).resolves.toMatch(/^c=1\t64\t64\t0\t512\t128\t/);
    await page.screenshot({ path: join(ARTIFACTS, 'run.png'), fullPage: true });
    await page.close();
  });

  it('downloads are published next to the pages with their checksums; methodology and submit render', async () => {
    const page = await open('/downloads/', 'downloads');
    const links = await page.locator('table a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.some((l) => l.endsWith('/data/parquet/latest/points.parquet'))).toBe(true);
    for (const link of links) expect((await fetch(link)).status, link).toBe(200);
    expect((await fetch(`${site.url}/data/site/points.arrow`)).status).toBe(200);
    expect((await fetch(`${site.url}/data/result.schema.json`)).status).toBe(200);
    await page.close();
    const methodology = await open('/methodology/', 'methodology');
    await expect(methodology.locator('h1').first().innerText()).resolves.toBe('Metrics');
    await methodology.close();
    const submit = await open('/submit/', 'submit');
    await expect(submit.locator('h1').innerText()).resolves.toBe('Submit a result');
    await submit.close();
  });

  it('compare: two versions side by side on every shared configuration, from a permalink', async () => {
    const page = await open('/compare/?a=vllm%401.0.0&b=vllm%401.1.0', 'compare');
    await page.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const rows = await page.locator('table[data-compare-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!)));
    expect(rows.map((r) => r[0])).toEqual(['synthetic/llama-8b · bfloat16 · 1x-Synthetic H100 · chat · c=1', 'synthetic/llama-8b · bfloat16 · 1x-Synthetic H100 · chat · c=8']);
    for (const [i, concurrency] of [1, 8].entries()) {
      const tput = (version: string) => median(results.filter((r) => r.run!.engine.name === 'vllm' && r.run!.engine.version === version).map((r) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!.metrics.output_throughput!));
      expect(rows[i]![3]).toBe(formatPercent((tput('1.1.0') / tput('1.0.0') - 1) * 100));
    }
    await page.screenshot({ path: join(ARTIFACTS, 'compare.png'), fullPage: true });
    await page.close();
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
    await page.close();
  });

  it('made no request to another host and logged no console error', () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
