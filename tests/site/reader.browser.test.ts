/**
 * The reader's site built from the committed results/ (the real CPU lane, not a fixture), read as a
 * newcomer reads it, at 1280 and 375 px: the home's answer on screen at both widths, every run with
 * a page that names its file and sha256, the history in release order, the downloads' examples
 * returning rows. Each figure is checked against the result files themselves. Screenshots go to
 * test-artifacts/reader/.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_OPTIONS } from '../../harness/contract/command-options.ts';
import { reproduceBlock } from '../../harness/contract/reproduce-block.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { readRecordedArgv } from '../../harness/lib/cli/recorded-argv.ts';
import { reproduceLine } from '../../harness/lib/shell/reproduce.ts';
import { compareVersions } from '../../harness/lib/version-compare.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { formatNumber } from '../../site/lib/format.ts';
import { openBuiltSite, REPO, type ServedSite } from './built-site.ts';

const ARTIFACTS = join(REPO, 'test-artifacts', 'reader');
const REPO_URL = 'https://github.com/servebench/servebench';
const WIDTHS = [1280, 375] as const;
const root = mkdtempSync(join(tmpdir(), 'servebench-reader-'));
const data = join(root, 'data');
let opened: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let site: ServedSite;
let browser: Browser;
const consoleErrors: string[] = [];
/** Every committed result: its path under results/, its text, the run. */
const committed = listResultFiles(join(REPO, 'results')).files.map((f) => {
  const text = readFileSync(f.absolutePath, 'utf8');
  return { file: f.relativePath, text, result: JSON.parse(text) as RunResult };
});

async function page(path: string, width: number, name: string) {
  const p = await browser.newPage({ viewport: { width, height: width < 500 ? 812 : 900 }, isMobile: width < 500 });
  p.on('console', (message) => (message.type() === 'error' ? consoleErrors.push(`${path}: ${message.text()}`) : undefined));
  p.on('pageerror', (error) => consoleErrors.push(`${path}: ${error.message}`));
  await p.goto(`${site.url}${path}`);
  await p.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: false });
  return p;
}

const geoMean = (values: readonly number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  expect(committed.length).toBeGreaterThan(0);
  await compile({ resultsDir: join(REPO, 'results'), outDir: data, prices: loadPrices(), now: new Date('2026-12-04T00:00:00Z') });
  // Built at its own URL, as the nightly builds at the public one: the downloads' URLs are absolute.
  opened = await openBuiltSite(data, join(root, 'site'), { SERVEBENCH_REPO_URL: REPO_URL }, { atOwnUrl: true });
  ({ site, browser } = opened);
}, 300_000);

afterAll(async () => {
  await opened?.close();
});

describe('the site built from the committed results/, as a reader reads it', () => {
  it('home at 1280 and 375 px: every ranked row\'s rank, engine, throughput and change on screen without scrolling sideways, each throughput the result files\' own', async () => {
    // The published points say which run and point each ranked value is made of and whether it was valid.
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const pointFiles = readdirSync(join(data, 'parquet', 'latest', 'points')).map((f) => `'${join(data, 'parquet', 'latest', 'points', f)}'`);
    const releases = (await duck.runAndReadAll(`SELECT scenario_id, load, engine, engine_version, validity, list(run_id || '#' || point) AS points FROM read_parquet([${pointFiles.join(', ')}])
      WHERE source = 'official' AND engine_version_known IS NOT FALSE GROUP BY ALL`)).getRowObjectsJson() as Array<{ scenario_id: string; load: string; engine: string; engine_version: string; validity: string; points: string[] }>;
    duck.closeSync();
    const byRun = new Map(committed.map((c) => [c.result.run_id, c.result]));
    for (const width of WIDTHS) {
      const home = await page('/', width, 'home');
      expect(await home.evaluate(() => document.documentElement.scrollWidth), `${width}`).toBeLessThanOrEqual(width);
      const section = home.locator('section[data-config]:visible');
      const scenarioId = (await section.getAttribute('data-config'))!;
      const ranking = section.locator('[data-config-load]:visible');
      const load = (await ranking.getAttribute('data-config-load'))!;
      await ranking.locator('table[data-ranking]').scrollIntoViewIfNeeded();
      await home.screenshot({ path: join(ARTIFACTS, `home-ranking-${width}.png`), fullPage: false });
      const rows = await ranking.locator('table[data-ranking] tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({ engine: (tr as HTMLElement).dataset.engine!, validity: (tr as HTMLElement).dataset.validity!, badge: tr.querySelector('[data-validity-badge]')?.textContent ?? null, cells: [...tr.querySelectorAll('td.answer')].map((td) => ({ text: td.textContent!.trim().replace(/\s+/g, ' '), left: td.getBoundingClientRect().left, right: td.getBoundingClientRect().right })) })),
      );
      expect(rows.length, `${width}`).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.cells.map((c) => c.text.length > 0), `${width} ${row.engine}`).toEqual([true, true, true, true]);
        for (const cell of row.cells) expect([width, cell.text, cell.left >= 0 && cell.right <= width, Math.round(cell.left), Math.round(cell.right)]).toEqual([width, cell.text, true, Math.round(cell.left), Math.round(cell.right)]);
        // "llamacpp 3.21.1": the release the row shows. A valid one is ranked, its throughput the geometric mean over
        // the valid points of its runs, read from the files; one whose points all failed a check is shown unranked with its status.
        const version = row.cells[1]!.text.split(' ')[1]!;
        const release = (validity: string) => releases.find((v) => v.scenario_id === scenarioId && v.load === load && v.engine === row.engine && v.engine_version === version && v.validity === validity);
        if (row.validity !== 'valid') {
          expect([row.engine, version, row.cells[0]!.text, row.badge !== null, release('valid')]).toEqual([row.engine, version, '–', true, undefined]);
          expect(release(row.validity), `${row.engine} ${version} ${row.validity}`).toBeDefined();
          continue;
        }
        expect(row.cells[0]!.text).toMatch(/^\d+$/);
        const tputs = release('valid')!.points.map((ref) => {
          const [runId, point] = ref.split('#');
          return byRun.get(runId!)!.points[Number(point)]!.metrics.output_throughput!;
        });
        expect(row.cells[2]!.text.startsWith(formatNumber(geoMean(tputs))), `${row.cells[2]!.text} vs ${formatNumber(geoMean(tputs))}`).toBe(true);
      }
      await home.close();
    }
  }, 120_000);

  it('every committed run has a page naming its file and sha256, with its raw file linked and its Reproduce block; the lookup page reads the ones not prerendered', async () => {
    const prerendered = new Set(existsSync(join(data, 'site', 'runs')) ? readdirSync(join(data, 'site', 'runs')).map((f) => f.replace(/\.json$/, '')) : []);
    const lookup = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    lookup.on('pageerror', (error) => consoleErrors.push(`lookup: ${error.message}`));
    for (const { file, text, result } of committed) {
      const sha256 = createHash('sha256').update(text).digest('hex');
      const raw = `${REPO_URL}/blob/main/results/${file}`;
      if (prerendered.has(result.run_id)) {
        const response = await fetch(`${site.url}/run/${result.run_id}/`);
        expect([result.run_id, response.status]).toEqual([result.run_id, 200]);
        const html = await response.text();
        for (const shown of [file, sha256, `href="${raw}"`, result.run!.engine.version!]) expect(html.includes(shown), `${result.run_id}: ${shown}`).toBe(true);
        continue;
      }
      await lookup.goto(`${site.url}/run/?id=${result.run_id}`);
      await lookup.waitForFunction(() => document.getElementById('run-lookup')?.dataset.lookup !== 'pending', null, { timeout: 60_000 });
      const provenance = async (key: string) => lookup.locator(`table[data-provenance] tr[data-key="${key}"] td`).innerText();
      await expect(Promise.all([provenance('engine_version'), provenance('file'), provenance('file_sha256')]), result.run_id).resolves.toEqual([result.run!.engine.version, file, sha256]);
      await expect(lookup.getByRole('link', { name: `results/${file}` }).getAttribute('href')).resolves.toBe(raw);
      // Its Reproduce block, as compile makes the prerendered pages' (the command as servebench's own option table reads it).
      const recorded = readRecordedArgv(result.harness.command, 'run', RUN_OPTIONS);
      expect(recorded.ok, result.run_id).toBe(true);
      if (recorded.ok) {
        const line = reproduceLine({ command: recorded.parsed, image: result.run!.engine.image, imageDigest: result.run!.engine.image_digest });
        await expect(lookup.locator('code#reproduce').innerText(), result.run_id).resolves.toBe(reproduceBlock(line, result.harness.git_commit ?? null, REPO_URL));
      }
    }
    await lookup.close();
  }, 300_000);

  it('each configuration\'s history runs in release order: every engine\'s versions ascending along the axis', async () => {
    const home = await page('/', 1280, 'overview');
    const scenarios = await home.locator('#scenarios a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    await home.close();
    expect(scenarios.length).toBeGreaterThan(0);
    for (const [i, path] of scenarios.entries()) {
      const scenario = await page(path, 1280, `scenario-${i}`);
      // The table under the first history chart lists its releases in the order of its axis.
      const releases = await scenario.locator('[data-history-chart-table]').first().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [(tr as HTMLElement).dataset.engine!, (tr as HTMLElement).dataset.version!] as const));
      expect(releases.length, path).toBeGreaterThan(0);
      const versions = new Map<string, string[]>();
      for (const [engine, version] of releases) versions.set(engine, [...(versions.get(engine) ?? []), version]);
      for (const [engine, list] of versions) expect(list, `${path} ${engine}`).toEqual([...list].sort(compareVersions));
      await scenario.close();
    }
  }, 120_000);

  it('the downloads\' DuckDB examples name absolute URLs this site serves, and return rows on the bytes it serves', async () => {
    const downloads = await page('/downloads/', 1280, 'downloads');
    const examples = Object.fromEntries(await downloads.locator('pre[data-example]').evaluateAll((pres) => pres.map((pre) => [(pre as HTMLElement).dataset.example!, pre.textContent!])));
    await downloads.close();
    const dataUrl = `${site.url}/data`;
    const named = [...examples['duckdb-files']!.matchAll(/'(https?:\/\/[^']+)'/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const url of named) expect(url.startsWith(`${dataUrl}/parquet/latest/points/`), url).toBe(true);
    expect(examples['duckdb-manifest']).toContain(`'${dataUrl}/MANIFEST.json'`);
    // DuckDB reads HTTP with its httpfs extension, fetched from extensions.duckdb.org, which tests do
    // not reach: every file the examples read is fetched from this site over HTTP into a mirror, its
    // bytes checked against MANIFEST's sha256, and the examples run on the mirror, URLs and all.
    const mirror = join(root, 'mirror');
    const fetchInto = async (url: string): Promise<Buffer> => {
      const response = await fetch(url);
      expect(response.status, url).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      const path = join(mirror, url.slice(dataUrl.length + 1));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      return bytes;
    };
    const manifest = JSON.parse((await fetchInto(`${dataUrl}/MANIFEST.json`)).toString('utf8')) as { files: Array<{ path: string; sha256: string }> };
    const points = manifest.files.filter((f) => f.path.startsWith('parquet/latest/points/'));
    expect(points.map((f) => `${dataUrl}/${f.path}`).sort()).toEqual([...named].sort());
    for (const f of points) expect(createHash('sha256').update(await fetchInto(`${dataUrl}/${f.path}`)).digest('hex'), f.path).toBe(f.sha256);
    const local = (sqlText: string) => sqlText.replaceAll(`'${dataUrl}/`, `'${mirror}/`);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const releases = (await duck.runAndReadAll(local(examples['duckdb-files']!))).getRowObjectsJson();
    expect(releases.length).toBeGreaterThan(0);
    const [setList, query] = local(examples['duckdb-manifest']!).split(';\nSELECT');
    await duck.run(setList!);
    const perEngine = (await duck.runAndReadAll(`SELECT${query!}`)).getRowObjectsJson() as Array<{ engine: string; runs: string; points: string }>;
    // Every published point of every run (official and community alike), as the files hold them.
    const engines = [...new Set(committed.filter((c) => c.result.points.length > 0).map((c) => c.result.run!.engine.name))].sort();
    expect(perEngine.map((row) => [row.engine, Number(row.runs), Number(row.points)])).toEqual(
      engines.map((engine) => {
        const runs = committed.filter((c) => c.result.run!.engine.name === engine && c.result.points.length > 0);
        return [engine, runs.length, runs.reduce((sum, c) => sum + c.result.points.length, 0)];
      }),
    );
    duck.closeSync();
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
