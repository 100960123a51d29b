/**
 * bench:site: the site's budgets, measured in Chromium here (issue 6):
 * - initial JavaScript per page, gzipped: the page's module scripts and their static imports,
 *   not the lazily imported DuckDB-Wasm;
 * - the SLA filter on N release rows (default 1,000,000): SYNTHETIC results
 *   (harness/testbed/synthetic-results.ts) compiled in a temp folder, releases.arrow (the compiled
 *   release medians the filter reads) replicated up to N rows, then in
 *   the page: the first answer (DuckDB-Wasm download, Arrow ingest, query) and answers after load (query only).
 * Writes bench/results/site-*.json.
 *
 * Usage: npm run bench:site [-- --rows 1000000 --files 10000]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { chromium } from 'playwright-core';
import { writeNewFileAtomic } from '../harness/lib/io/atomic-write.ts';
import { compile } from '../harness/store/compile.ts';
import { loadPrices } from '../harness/store/prices.ts';
import { fleetHistory, syntheticResult, writeResult } from '../harness/testbed/synthetic-results.ts';
import { serveStatic } from '../scripts/static-server.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, files: { type: 'string', default: '10000' } } });
const targetRows = Number(values.rows);
const scratch = mkdtempSync(join(tmpdir(), 'servebench-bench-site-'));

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => join(e.parentPath, e.name));
}

/** gzip bytes of a page's module scripts and everything they import statically. */
function initialJs(site: string, html: string): { bytes: number; files: string[] } {
  const text = readFileSync(html, 'utf8');
  const seen = new Set<string>();
  const queue = [...text.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((m) => join(site, m[1]!));
  let bytes = [...text.matchAll(/<script[^>]*type="module"[^>]*>([^<]+)<\/script>/g)].reduce((sum, m) => sum + gzipSync(m[1]!).length, 0);
  // Inline module scripts import their chunks: follow those too.
  for (const m of text.matchAll(/import[^"']*["']([^"']+\.js)["']/g)) queue.push(join(site, m[1]!));
  // A client:load island's component and renderer load with the page (Astro imports them from the
  // <astro-island> element), so they count as initial JavaScript too.
  for (const island of text.matchAll(/<astro-island[^>]*>/g)) {
    for (const m of island[0].matchAll(/\s(?:component|renderer)-url="([^"]+)"/g)) queue.push(join(site, m[1]!));
  }
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    bytes += gzipSync(code).length;
    // Static imports only: `import(` is lazy and excluded.
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+)["']/g)) queue.push(join(dirname(file), m[1]!));
  }
  return { bytes, files: [...seen].map((f) => relative(site, f)) };
}

try {
  const resultsDir = join(scratch, 'results');
  process.stderr.write(`writing ${values.files} SYNTHETIC results, compiling, building the site\n`);
  for (const run of fleetHistory(Number(values.files))) writeResult(resultsDir, syntheticResult(run));
  const dataDir = join(scratch, 'data');
  await compile({ resultsDir, outDir: dataDir, prices: loadPrices() });
  const siteDir = join(scratch, 'site');
  const buildStart = performance.now();
  execFileSync(process.execPath, [join(REPO, 'node_modules/astro/bin/astro.mjs'), 'build', '--silent'], { cwd: REPO, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', SERVEBENCH_DATA: dataDir, SERVEBENCH_SITE_OUT: siteDir }, stdio: 'inherit' });
  const buildSeconds = (performance.now() - buildStart) / 1000;
  const pages = htmlFiles(siteDir);
  const js = pages.map((page) => ({ page: relative(siteDir, page), ...initialJs(siteDir, page) })).sort((a, b) => b.bytes - a.bytes);

  // Replicate the release rows (the SLA filter's table) up to the target size: the page's SLA query
  // then ingests and scans N rows (it keeps those of its scenario).
  const arrowPath = join(siteDir, 'data', 'site', 'releases.arrow');
  const base = tableFromIPC(readFileSync(arrowPath));
  const copies = Math.ceil(targetRows / base.numRows);
  let big = new Table(base.batches);
  for (let i = 1; i < copies; i++) big = big.concat(base);
  big = big.slice(0, targetRows);
  writeFileSync(arrowPath, tableToIPC(big, 'stream'));
  const arrowBytes = statSync(arrowPath).size;

  const server = await serveStatic(siteDir);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const page = await browser.newPage();
  await page.goto(`${server.url}/`);
  const href = (await page.locator('#scenarios a').first().getAttribute('href'))!;
  await page.goto(`${server.url}${href}`);
  const apply = async (limit: number): Promise<number> => {
    await page.locator('input[name="ttft_ms_p99"]').fill(String(limit));
    const before = await page.locator('section#sla').getAttribute('data-sla-ms');
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.waitForFunction((previous) => {
      const ms = document.querySelector<HTMLElement>('section#sla')?.dataset.slaMs;
      return ms !== undefined && ms !== previous;
    }, before, { timeout: 600_000 });
    return Number(await page.locator('section#sla').getAttribute('data-sla-ms'));
  };
  const first = await apply(500);
  const warm: number[] = [];
  for (const limit of [400, 300, 250, 200, 150]) warm.push(await apply(limit));
  const status = await page.locator('[data-sla-status]').innerText();
  await browser.close();
  await server.close();

  const sorted = [...warm].sort((a, b) => a - b);
  const report = {
    bench: 'site',
    at: new Date().toISOString(),
    synthetic: true,
    result_files: Number(values.files),
    pages: pages.length,
    site_build_s: Number(buildSeconds.toFixed(1)),
    initial_js_gzip_max_bytes: js[0]!.bytes,
    initial_js_gzip: js.slice(0, 5),
    sla: { release_rows: big.numRows, arrow_bytes: arrowBytes, arrow_gzip_bytes: gzipSync(readFileSync(arrowPath)).length, first_answer_ms: first, after_load_ms: warm, after_load_median_ms: sorted[Math.floor(sorted.length / 2)], last_status: status },
  };
  process.stderr.write(`${JSON.stringify(report, null, 2)}\n`);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const out = join(REPO, 'bench', 'results', `site-${stamp}.json`);
  await writeNewFileAtomic(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${out}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
