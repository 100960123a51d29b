/**
 * The scenario page's charts in a real browser (Debian's chromium through playwright-core), built
 * from the SYNTHETIC fixture of tests/store (vllm: two releases of three runs each; sglang: two
 * releases of one run each), served on 127.0.0.1: details on hover and keyboard focus, arrow keys,
 * the legend's toggles and log scales in the URL, the TPOT bound on either scale, interval bars and
 * single-run marks, the history's releases in release order with their published days and release
 * notes (a SYNTHETIC release list written here: the days put the releases in another order than
 * the days they were first measured), accessibility (axe-core: no serious or critical violation),
 * the page's initial JavaScript under budget. Every expected value comes from the compiled JSON the site was built
 * from, never written here. Screenshots go to test-artifacts/site/charts-*.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { ParetoPoint, Release, Scenario } from '../../harness/contract/site-data.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';
import { formatInterval, formatNumber } from '../../site/lib/format.ts';
import { EXTRA_RELEASES_ENV } from '../../harness/contract/releases.ts';
import { openBuiltSite, REPO, type ServedSite } from './built-site.ts';

const ARTIFACTS = join(REPO, 'test-artifacts', 'site');
const AXE = join(REPO, 'node_modules', 'axe-core', 'axe.min.js');
const root = mkdtempSync(join(tmpdir(), 'servebench-charts-'));
let site: ServedSite;
let opened: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let browser: Browser;
let scenario: Scenario;
let pareto: ParetoPoint[] = [];
let history: Release[] = [];
let noise: Array<{ engine: string; hardware: string; load: string; metric: string; log_sd: number | null; releases: number }> = [];
/** The σ of an engine's output throughput on the scenario's hardware at a load (noise.json); undefined without repeats. */
const sigmaOf = (engine: string, load: string) => noise.find((n) => n.metric === 'output_throughput' && n.engine === engine && n.hardware === scenario.hardware && n.load === load)?.log_sd ?? undefined;
let href = '';
const consoleErrors: string[] = [];

const PARETO = 'figure[data-chart="pareto"]';
const HISTORY = 'figure[data-chart="history"]:not([hidden])';

async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('console', (message) => (message.type() === 'error' ? consoleErrors.push(`${path}: ${message.text()}`) : undefined));
  page.on('pageerror', (error) => consoleErrors.push(`${path}: ${error.message}`));
  await page.goto(`${site.url}${path}`);
  return page;
}

const row = (engine: string, version: string, load: string) => history.find((r) => r.engine === engine && r.engine_version === version && r.load === load)!;
const num = (r: Release, column: string) => (typeof r[column] === 'number' ? (r[column] as number) : null);
const sel = (engine: string, version: string, load: string) => `g[data-point][data-engine="${engine}"][data-version="${version}"][data-load="${load}"]`;
const runLink = (id: string) => `/run/${id}/`;

/** What the details box says of a Pareto point, from the compiled rows. */
function paretoDetails(p: ParetoPoint): { lines: string[]; href: string } {
  const r = row(p.engine, p.engine_version, p.load);
  const y = num(r, 'output_throughput_per_gpu') !== null ? 'output_throughput_per_gpu' : 'output_throughput';
  const interval = (column: string) => formatInterval(r[`${column}__lo`], r[`${column}__hi`]);
  const xi = interval('interactivity_tok_s_p50');
  const yi = interval(y);
  return {
    lines: [
      `${p.engine} ${p.engine_version} at ${p.load}`,
      `Interactivity p50: ${formatNumber(p.interactivity)} tok/s/user${xi ? `; 95% interval ${xi}` : ''}`,
      `Throughput per GPU: ${formatNumber(p.throughput_per_gpu)} tok/s${yi ? `; 95% interval ${yi}` : ''}`,
      r.runs === 1 ? '1 run: no interval' : `${r.runs} runs`,
      `Run ${p.latest_run_id} →`,
    ],
    href: runLink(p.latest_run_id),
  };
}

async function details(page: Page, figure: string): Promise<{ lines: string[]; href: string | null; notes: string | null; role: string | null; live: string | null }> {
  const box = page.locator(`${figure} [data-chart-details]`);
  return {
    lines: await box.locator('p').allInnerTexts(),
    href: await box.locator('a:not([data-release-notes])').getAttribute('href', { timeout: 1000 }).catch(() => null),
    notes: await box.locator('a[data-release-notes]').getAttribute('href', { timeout: 200 }).catch(() => null),
    role: await box.getAttribute('role'),
    live: await box.getAttribute('aria-live'),
  };
}

const focusedPoint = (page: Page) => page.evaluate(() => {
  const g = document.activeElement?.closest<SVGGElement>('g[data-point]');
  return g ? `${g.dataset.engine} ${g.dataset.version} ${g.dataset.load}` : null;
});
const keyOf = (p: ParetoPoint) => `${p.engine} ${p.engine_version} ${p.load}`;
const tickLabels = (page: Page) => page.locator(`${PARETO} > [data-plot] g[aria-label="x-axis tick label"] text`).allTextContents();

async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

/**
 * SYNTHETIC published days and release notes for the fixture's releases (first measured: vllm 1.0.0
 * Jan 10, sglang 2.0.0 Jan 15, vllm 1.1.0 Feb 10, sglang 2.1.0 Feb 15): both sglang releases came
 * out before vllm 1.0.0, and vllm 1.1.0 has no day (it follows vllm 1.0.0).
 */
const PUBLISHED: Record<string, Record<string, { at: string | null; url: string | null }>> = {
  sglang: { '2.0.0': { at: '2025-11-01T12:00:00Z', url: 'https://example.invalid/sglang/releases/2.0.0' }, '2.1.0': { at: '2025-11-20T12:00:00Z', url: null } },
  vllm: { '1.0.0': { at: '2025-12-01T12:00:00Z', url: 'https://example.invalid/vllm/releases/1.0.0' }, '1.1.0': { at: null, url: null } },
};
const RELEASE_ORDER = ['sglang 2.0.0', 'sglang 2.1.0', 'vllm 1.0.0', 'vllm 1.1.0'];
const dayOf = (engine: string, version: string) => PUBLISHED[engine]?.[version]?.at?.slice(0, 10) ?? 'date unknown';
const previousExtra = process.env[EXTRA_RELEASES_ENV];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const resultsDir = join(root, 'results');
  writeFixture(resultsDir);
  const data = join(root, 'data');
  const list = join(root, 'published-releases.json');
  const engines = Object.fromEntries(Object.entries(PUBLISHED).map(([engine, versions]) => [engine, { sources: ['SYNTHETIC'], releases: Object.entries(versions).map(([version, r]) => ({ version, tag: null, published_at: r.at, release_url: r.url, source: 'SYNTHETIC days for the charts test' })) }]));
  writeFileSync(list, JSON.stringify({ schema_version: 1, description: 'SYNTHETIC', engines }));
  process.env[EXTRA_RELEASES_ENV] = [previousExtra, list].filter(Boolean).join(delimiter);
  await compile({ resultsDir, outDir: data, prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  scenario = (JSON.parse(readFileSync(join(data, 'site', 'scenarios.json'), 'utf8')) as Scenario[])[0]!;
  const detail = JSON.parse(readFileSync(join(data, 'site', 'scenarios', `${scenario.scenario_id}.json`), 'utf8')) as { pareto: ParetoPoint[]; history: Release[] };
  pareto = detail.pareto;
  history = detail.history;
  noise = existsSync(join(data, 'site', 'noise.json')) ? JSON.parse(readFileSync(join(data, 'site', 'noise.json'), 'utf8')) : [];
  href = `/scenario/${scenario.scenario_id}/`;
  opened = await openBuiltSite(data, join(root, 'site'));
  ({ site, browser } = opened);
}, 240_000);

afterAll(() => {
  if (previousExtra === undefined) delete process.env[EXTRA_RELEASES_ENV];
  else process.env[EXTRA_RELEASES_ENV] = previousExtra;
  return opened?.close();
});

describe('the scenario charts in Chromium', () => {
  it('the fixture has repeated and single-run releases: bars for the one, dashed open dots for the other, on both charts', async () => {
    const repeated = pareto.filter((p) => row(p.engine, p.engine_version, p.load).runs > 1);
    const single = pareto.filter((p) => row(p.engine, p.engine_version, p.load).runs === 1);
    expect(repeated.length).toBeGreaterThan(0);
    expect(single.length).toBeGreaterThan(0);
    const page = await open(href);
    const figure = await page.evaluate(() => {
      const f = document.querySelector<HTMLElement>('figure[data-chart="pareto"]')!;
      return { domain: f.dataset.xDomain!.split(' ').map(Number), range: f.dataset.xRange!.split(' ').map(Number), scale: f.dataset.xScale };
    });
    expect(figure.scale).toBe('linear');
    const project = (v: number) => figure.range[0]! + ((v - figure.domain[0]!) / (figure.domain[1]! - figure.domain[0]!)) * (figure.range[1]! - figure.range[0]!);
    for (const p of pareto) {
      const r = row(p.engine, p.engine_version, p.load);
      const g = page.locator(`${PARETO} ${sel(p.engine, p.engine_version, p.load)}`);
      await expect(g.getAttribute('class'), keyOf(p)).resolves.toContain(r.runs === 1 ? 'single' : 'pt');
      if (r.runs === 1) {
        await expect(g.locator('.bars').count(), keyOf(p)).resolves.toBe(0);
        await expect(g.locator('.dot').getAttribute('stroke-dasharray')).resolves.not.toBeNull();
        continue;
      }
      await expect(g.getAttribute('class')).resolves.not.toContain('single');
      // The x bar runs from the interval's low end to its high end, on the chart's own scale.
      const [d, translate] = await Promise.all([g.locator('path.err-x').getAttribute('d'), g.getAttribute('transform')]);
      const [, a, b] = /^M([-\d.]+),0H([-\d.]+)/.exec(d!)!;
      const x = Number(/translate\(([-\d.]+),/.exec(translate!)![1]);
      expect(Math.abs(x + Number(a) - project(r.interactivity_tok_s_p50__lo as number))).toBeLessThan(0.25);
      expect(Math.abs(x + Number(b) - project(r.interactivity_tok_s_p50__hi as number))).toBeLessThan(0.25);
      await expect(g.locator('path.err-y').count()).resolves.toBe(1);
    }
    await expect(page.locator(`${PARETO} .chart-key li`, { hasText: 'a single run' }).isVisible()).resolves.toBe(true);
    await expect(page.locator(`${PARETO} .chart-key li`, { hasText: '95% interval' }).isVisible()).resolves.toBe(true);
    // History at the highest load: a bar per repeated release, a dashed open dot per single run, a noise band per engine.
    const load = scenario.loads[scenario.loads.length - 1]!;
    const shown = page.locator(HISTORY);
    await expect(shown.getAttribute('data-metric')).resolves.toBe('output_throughput');
    for (const r of history.filter((h) => h.load === load)) {
      const g = shown.locator(sel(r.engine, r.engine_version, load));
      await expect(g.locator('.bars').count(), `${r.engine} ${r.engine_version}`).resolves.toBe(r.runs > 1 ? 1 : 0);
      await expect(g.getAttribute('class')).resolves.toBe(r.runs === 1 ? 'pt single' : 'pt');
    }
    // Each engine's own band (its repeats on this hardware at this load): vllm was repeated, sglang measured once per release.
    const banded = [...new Set(history.map((h) => h.engine))].filter((engine) => sigmaOf(engine, load) !== undefined);
    expect(banded).toEqual(['vllm']);
    await expect(shown.locator('path.noise-band').count()).resolves.toBe(banded.length);
    await expect(shown.locator('figcaption').innerText()).resolves.toMatch(/shaded band around an engine's line is that engine's own run-to-run noise/);
    await expect(shown.locator('figcaption').innerText()).resolves.toMatch(/An engine without a band has no repeated runs here/);
    await page.close();
  });

  it('hover and keyboard focus show each point: engine, version, load, values with their intervals, runs and the run link', async () => {
    const page = await open(href);
    // Hover: one repeated and one single-run point of the Pareto chart.
    const repeated = pareto.find((p) => row(p.engine, p.engine_version, p.load).runs > 1)!;
    const single = pareto.find((p) => row(p.engine, p.engine_version, p.load).runs === 1)!;
    for (const p of [repeated, single]) {
      await page.mouse.move(0, 0);
      await page.locator(`${PARETO} ${sel(p.engine, p.engine_version, p.load)} > a`).hover();
      const shown = await details(page, PARETO);
      const expected = paretoDetails(p);
      expect(shown.lines, keyOf(p)).toEqual(expected.lines);
      expect(shown.href).toBe(expected.href);
      expect([shown.role, shown.live]).toEqual(['status', 'polite']);
    }
    expect(paretoDetails(repeated).lines[1]).toContain('95% interval');
    await page.screenshot({ path: join(ARTIFACTS, 'charts-details.png') });
    await page.mouse.move(0, 0);
    await expect(page.locator(`${PARETO} [data-chart-details]`).innerText()).resolves.toBe('');

    // Keyboard: one tab stop into the chart, from the control before it.
    await expect(page.locator(`${PARETO} g[data-point] > a[tabindex="0"]`).count()).resolves.toBe(1);
    await page.locator(`${PARETO} input[data-chart-log]`).focus();
    await page.keyboard.press('Tab');
    const byX = [...pareto].sort((a, b) => a.interactivity - b.interactivity).map(keyOf);
    const start = await focusedPoint(page);
    expect(start).not.toBeNull();
    let at = byX.indexOf(start!);
    expect((await details(page, PARETO)).lines[0]).toBe(`${start!.split(' ')[0]} ${start!.split(' ')[1]} at ${start!.split(' ')[2]}`);
    // Arrow keys walk the points in the order of x; Home and End go to the ends.
    for (const [key, step] of [['ArrowRight', 1], ['ArrowRight', 1], ['ArrowLeft', -1]] as const) {
      await page.keyboard.press(key);
      at = Math.min(byX.length - 1, Math.max(0, at + step));
      await expect(focusedPoint(page)).resolves.toBe(byX[at]);
    }
    await page.keyboard.press('End');
    await expect(focusedPoint(page)).resolves.toBe(byX[byX.length - 1]);
    await page.keyboard.press('Home');
    await expect(focusedPoint(page)).resolves.toBe(byX[0]);
    const first = pareto.find((p) => keyOf(p) === byX[0])!;
    expect((await details(page, PARETO)).lines).toEqual(paretoDetails(first).lines);
    // Still one tab stop, now on the focused point; up and down move to another point.
    await expect(page.locator(`${PARETO} g[data-point] > a[tabindex="0"]`).count()).resolves.toBe(1);
    await page.keyboard.press('ArrowUp');
    await expect(focusedPoint(page)).resolves.not.toBe(byX[0]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    await page.screenshot({ path: join(ARTIFACTS, 'charts-focus.png') });
    // Escape closes the details, focus stays; Enter follows the run link.
    await page.keyboard.press('Escape');
    await expect(page.locator(`${PARETO} [data-chart-details]`).innerText()).resolves.toBe('');
    await expect(focusedPoint(page)).resolves.toBe(byX[0]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`${runLink(first.latest_run_id)}$`));

    // History: a release's value with its interval, runs, noise band and run link.
    await page.goto(`${site.url}${href}`);
    const load = scenario.loads[scenario.loads.length - 1]!;
    for (const r of history.filter((h) => h.load === load)) {
      const sigma = sigmaOf(r.engine, load);
      await page.mouse.move(0, 0);
      await page.locator(`${HISTORY} ${sel(r.engine, r.engine_version, load)} > a`).hover();
      const v = num(r, 'output_throughput')!;
      const interval = formatInterval(r.output_throughput__lo, r.output_throughput__hi);
      const f = sigma === undefined ? null : Math.exp(1.96 * sigma);
      const shown = await details(page, HISTORY);
      expect(shown.lines).toEqual([
        `${r.engine} ${r.engine_version} at ${load}, released ${dayOf(r.engine, r.engine_version)}, first measured ${r.first_run_date}`,
        `Output throughput: ${formatNumber(v)} tok/s${interval ? `; 95% interval ${interval}` : ''}`,
        r.runs === 1 ? '1 run: no interval' : `${r.runs} runs`,
        ...(f === null ? [] : [`Noise band: ${formatInterval(v / f, v * f)} tok/s`]),
        `Run ${r.latest_run_id} →`,
        ...(r.release_url ? [`${r.engine_version} release notes →`] : []),
      ]);
      expect(shown.href).toBe(runLink(r.latest_run_id));
      expect(shown.notes).toBe(PUBLISHED[r.engine]![r.engine_version]!.url);
    }
    // The history chart's own tab stop and arrows.
    await page.locator(`${HISTORY} g[data-point] > a[tabindex="0"]`).focus();
    const before = await focusedPoint(page);
    await page.keyboard.press('ArrowRight');
    await expect(focusedPoint(page)).resolves.not.toBe(before);
    await page.close();
  });

  it('the history runs in release order, not first-measured order: each tick its version and published day, the chart\'s table its release notes', async () => {
    const load = scenario.loads[scenario.loads.length - 1]!;
    // The compiled rows carry what the list says.
    expect(history.filter((h) => h.load === load).map((h) => `${h.engine} ${h.engine_version} ${h.release_date} ${h.release_url}`).sort()).toEqual(
      Object.entries(PUBLISHED).flatMap(([engine, versions]) => Object.entries(versions).map(([version, r]) => `${engine} ${version} ${r.at?.slice(0, 10) ?? null} ${r.url}`)).sort(),
    );
    const firstMeasured = [...history.filter((h) => h.load === load)].sort((a, b) => a.first_run_date.localeCompare(b.first_run_date)).map((h) => `${h.engine} ${h.engine_version}`);
    expect(firstMeasured).not.toEqual(RELEASE_ORDER);
    const page = await open(href);
    const xs = await page.locator(`${HISTORY} > [data-plot] g[data-point]`).evaluateAll((gs) =>
      gs.map((g) => ({ key: `${(g as SVGGElement).dataset.engine} ${(g as SVGGElement).dataset.version}`, x: Number(/translate\(([-\d.]+),/.exec(g.getAttribute('transform')!)![1]) })),
    );
    expect([...xs].sort((a, b) => a.x - b.x).map((p) => p.key)).toEqual(RELEASE_ORDER);
    // One place per release, evenly spaced.
    const sorted = xs.map((p) => p.x).sort((a, b) => a - b);
    for (let i = 2; i < sorted.length; i++) expect(Math.abs(sorted[i]! - sorted[i - 1]! - (sorted[1]! - sorted[0]!))).toBeLessThan(0.2);
    const ticks = await page.locator(`${HISTORY} > [data-plot] g[aria-label="x-axis tick label"] text`).evaluateAll((ts) => ts.map((t) => [...t.querySelectorAll('tspan')].map((s) => s.textContent).join(' ') || t.textContent));
    expect(ticks).toEqual(RELEASE_ORDER.map((k) => `${k.split(' ')[1]} ${dayOf(k.split(' ')[0]!, k.split(' ')[1]!)}`));
    // The chart's table: in the axis' order, each release's day and its release notes where listed.
    const table = page.locator(`${HISTORY} [data-history-chart-table]`);
    await table.locator('summary').click();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({ cells: [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim()), notes: tr.querySelector('a[data-release-notes]')?.getAttribute('href') ?? null })));
    expect(rows.map((r) => `${r.cells[1]} ${r.cells[2]}`)).toEqual(RELEASE_ORDER);
    expect(rows.map((r) => r.cells[0])).toEqual(['1', '2', '3', '4']);
    expect(rows.map((r) => r.cells[3])).toEqual(RELEASE_ORDER.map((k) => dayOf(k.split(' ')[0]!, k.split(' ')[1]!)));
    expect(rows.map((r) => r.notes)).toEqual(RELEASE_ORDER.map((k) => PUBLISHED[k.split(' ')[0]!]![k.split(' ')[1]!]!.url));
    // One methodology in the fixture: no change marked.
    await expect(page.locator(`${HISTORY} g.methodology-change`).count()).resolves.toBe(0);
    await page.locator(HISTORY).screenshot({ path: join(ARTIFACTS, 'charts-history-release-order.png') });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('legend toggles hide an engine (points and lines) or one version on every chart, in the URL next to the other parameters, after a reload too', async () => {
    // TTFT p95: the fixture's 64 requests a point support it (p99 needs 100; docs/metrics.md, "Sample sufficiency").
    const page = await open(`${href}?load=c%3D1&metric=ttft_ms_p95`);
    const vllm = page.locator(`${PARETO} input[data-toggle-engine="vllm"]:not([data-toggle-version])`);
    await expect(vllm.isVisible()).resolves.toBe(true);
    await vllm.uncheck();
    const visible = (figure: string, engine: string) =>
      page.locator(`${figure} > [data-plot] g[data-point][data-engine="${engine}"], ${figure} > [data-plot] g[data-series][data-engine="${engine}"]`).evaluateAll((els) => els.map((el) => (el as SVGGraphicsElement).getBoundingClientRect().width > 0));
    const check = async (engine: string, expected: boolean) => {
      for (const figure of [PARETO, HISTORY]) {
        const shown = await visible(figure, engine);
        expect(shown.length, `${figure} ${engine}`).toBeGreaterThan(0);
        expect(new Set(shown), `${figure} ${engine}`).toEqual(new Set([expected]));
      }
    };
    await check('vllm', false);
    await check('sglang', true);
    const params = () => new URL(page.url()).searchParams;
    expect(params().getAll('hide')).toEqual(['vllm']);
    expect([params().get('load'), params().get('metric')]).toEqual(['c=1', 'ttft_ms_p95']);
    // The version toggles of a hidden engine are disabled; the history chart's legend agrees.
    await expect(page.locator(`${PARETO} input[data-toggle-engine="vllm"][data-toggle-version]`).first().isDisabled()).resolves.toBe(true);
    await expect(page.locator(`${HISTORY} input[data-toggle-engine="vllm"]:not([data-toggle-version])`).isChecked()).resolves.toBe(false);
    // One version hidden from the history chart's legend: hidden on both charts.
    const older = [...new Set(pareto.filter((p) => p.engine === 'sglang' && !p.latest_version).map((p) => p.engine_version))][0]!;
    await page.locator(`${HISTORY} input[data-toggle-engine="sglang"][data-toggle-version="${older}"]`).uncheck();
    expect(params().getAll('hide').sort()).toEqual([`sglang:${older}`, 'vllm']);
    await expect(page.locator(`${PARETO} g[data-point][data-engine="sglang"][data-version="${older}"]`).first().isVisible()).resolves.toBe(false);
    await expect(page.locator(`${PARETO} g[data-series][data-engine="sglang"][data-version="${older}"]`).isVisible()).resolves.toBe(false);
    const newest = pareto.find((p) => p.engine === 'sglang' && p.latest_version)!;
    await expect(page.locator(`${PARETO} ${sel('sglang', newest.engine_version, newest.load)}`).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'charts-toggled.png'), fullPage: true });
    // The tab stop moved off the hidden points.
    const stop = await page.locator(`${PARETO} g[data-point]:has(> a[tabindex="0"])`).evaluate((g) => (g as SVGGElement).dataset.engine);
    expect(stop).toBe('sglang');

    await page.reload();
    await check('vllm', false);
    await expect(page.locator(`${PARETO} input[data-toggle-engine="vllm"]:not([data-toggle-version])`).isChecked()).resolves.toBe(false);
    await expect(page.locator(`${PARETO} input[data-toggle-engine="sglang"][data-toggle-version="${older}"]`).isChecked()).resolves.toBe(false);
    await expect(page.locator(`${PARETO} g[data-series][data-engine="sglang"][data-version="${older}"]`).isVisible()).resolves.toBe(false);
    // The page's own state survived too: the load point and the history metric.
    await expect(page.locator('section[data-load="c=1"]').isVisible()).resolves.toBe(true);
    await expect(page.locator(HISTORY).getAttribute('data-metric')).resolves.toBe('ttft_ms_p95');
    await page.locator(`${PARETO} input[data-toggle-engine="vllm"]:not([data-toggle-version])`).check();
    await page.locator(`${PARETO} input[data-toggle-engine="sglang"][data-toggle-version="${older}"]`).check();
    await check('vllm', true);
    expect(params().getAll('hide')).toEqual([]);
    expect(new URL(page.url()).search).toBe('?load=c%3D1&metric=ttft_ms_p95');
    await page.close();
  });

  it('log scales change the ticks and keep the TPOT bound where 1000 ÷ limit falls, marks kept; in the URL, after a reload too', async () => {
    const page = await open(href);
    const linearTicks = await tickLabels(page);
    const xs = pareto.map((p) => p.interactivity);
    const tpotLimit = Number((1000 / ((Math.min(...xs) + Math.max(...xs)) / 2)).toFixed(3));
    const bound = 1000 / tpotLimit;
    await page.locator('form[data-sla-form] input[name="tpot_ms_p95"]').fill(String(tpotLimit));
    await page.locator('form[data-sla-form] button[type="submit"]').click();
    await page.locator(`${PARETO} g[data-sla-bound]:not([display])`).waitFor({ state: 'attached', timeout: 60_000 });
    const geometry = () =>
      page.evaluate(() => {
        const figure = document.querySelector<HTMLElement>('figure[data-chart="pareto"]')!;
        const px = (g: Element) => Number(g.getAttribute('transform')!.match(/translate\(([-\d.]+),/)![1]);
        return {
          scale: figure.dataset.xScale,
          domain: figure.dataset.xDomain!.split(' ').map(Number),
          range: figure.dataset.xRange!.split(' ').map(Number),
          line: Number(figure.querySelector('g[data-sla-bound] line')!.getAttribute('x1')),
          points: Object.fromEntries([...figure.querySelectorAll<SVGGElement>(':scope > [data-plot] g[data-point]')].map((g) => [`${g.dataset.engine} ${g.dataset.version} ${g.dataset.load}`, { x: px(g), sla: g.getAttribute('data-sla') }])),
        };
      });
    const expectBound = (g: Awaited<ReturnType<typeof geometry>>, log: boolean) => {
      const f = log ? Math.log : (v: number) => v;
      const [d0, d1] = g.domain as [number, number];
      const [r0, r1] = g.range as [number, number];
      expect(Math.abs(g.line - (r0 + ((f(bound) - f(d0)) / (f(d1) - f(d0))) * (r1 - r0)))).toBeLessThan(0.1);
      for (const p of pareto) expect(g.points[keyOf(p)]!.x < g.line, keyOf(p)).toBe(p.interactivity < bound);
    };
    const linear = await geometry();
    expect(linear.scale).toBe('linear');
    expectBound(linear, false);
    await page.locator(`${PARETO} input[data-chart-log]`).check();
    const log = await geometry();
    expect(log.scale).toBe('log');
    expectBound(log, true);
    expect(log.line).not.toBeCloseTo(linear.line, 0);
    // The same marks on the same points, the key and note still there.
    expect(Object.fromEntries(Object.entries(log.points).map(([k, v]) => [k, v.sla]))).toEqual(Object.fromEntries(Object.entries(linear.points).map(([k, v]) => [k, v.sla])));
    expect(Object.values(log.points).some((p) => p.sla === 'fail')).toBe(true);
    await expect(page.locator(`${PARETO} [data-sla-key="bound"]`).isVisible()).resolves.toBe(true);
    const logTicks = await tickLabels(page);
    expect(logTicks).not.toEqual(linearTicks);
    await expect(page.locator(`${PARETO} svg[aria-label]`).first().getAttribute('aria-label')).resolves.toContain('log scales');
    expect(new URL(page.url()).searchParams.get('scale')).toBe('log');
    expect(new URL(page.url()).searchParams.get('sla.tpot_ms_p95')).toBe(String(tpotLimit));
    await page.locator(PARETO).screenshot({ path: join(ARTIFACTS, 'charts-log-sla.png') });

    await page.reload();
    await page.locator(`${PARETO} g[data-sla-bound]:not([display])`).waitFor({ state: 'attached', timeout: 60_000 });
    await expect(page.locator(`${PARETO} input[data-chart-log]`).isChecked()).resolves.toBe(true);
    const again = await geometry();
    expect(again.scale).toBe('log');
    expectBound(again, true);
    await expect(tickLabels(page)).resolves.toEqual(logTicks);
    // Back to linear: the linear ticks and bound again.
    await page.locator(`${PARETO} input[data-chart-log]`).uncheck();
    await expect(tickLabels(page)).resolves.toEqual(linearTicks);
    expectBound(await geometry(), false);
    expect(new URL(page.url()).searchParams.has('scale')).toBe(false);
    await page.close();
  }, 120_000);

  it('axe finds no serious or critical violation; the initial JavaScript is under 100 KB gzipped; the charts fit 1280 and 375 px', async () => {
    const scripts = new Map<string, number>();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('response', async (response) => {
      if (!/\.m?js(\?|$)/.test(response.url()) || /duckdb/i.test(response.url())) return;
      scripts.set(response.url(), gzipSync(await response.body()).length);
    });
    await page.goto(`${site.url}${href}`, { waitUntil: 'networkidle' });
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    expect(total, JSON.stringify([...scripts])).toBeLessThanOrEqual(100 * 1024);
    expect([...scripts.keys()].some((u) => /chart-client/.test(u)) || [...scripts.keys()].some((u) => /ParetoChart|HistoryChart/.test(u))).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    // With details open (a link in a live region) and log scales on, still none.
    await page.locator(`${PARETO} input[data-chart-log]`).check();
    await page.locator(`${PARETO} g[data-point] > a[tabindex="0"]`).focus();
    expect(await axeViolations(page)).toEqual([]);
    await page.locator(`${PARETO} input[data-chart-log]`).uncheck();
    await page.mouse.move(0, 0);
    await page.locator('#h-pareto').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'charts-1280.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: await page.evaluate(() => document.documentElement.scrollHeight) } });
    await page.close();

    const phone = await open(href, { width: 375, height: 812 });
    // The charts fit the screen: the figure is no wider than it, the legend wraps, and the plot keeps a readable size by
    // panning sideways inside its own box.
    const fits = await phone.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('figure[data-chart]:not([hidden])')].map((f) => {
        const plot = f.querySelector<HTMLElement>(':scope > [data-plot]')!;
        return { chart: f.dataset.chart, fits: f.getBoundingClientRect().right <= window.innerWidth && f.scrollWidth <= f.clientWidth && plot.getBoundingClientRect().right <= window.innerWidth, pans: getComputedStyle(plot).overflowX };
      }),
    );
    expect(fits).toEqual([{ chart: 'pareto', fits: true, pans: 'auto' }, { chart: 'history', fits: true, pans: 'auto' }]);
    await phone.locator(`${PARETO} g[data-point] > a[tabindex="0"]`).focus();
    // The details stay inside the figure on a narrow screen.
    const inside = await phone.evaluate(() => {
      const figure = document.querySelector('figure[data-chart="pareto"]')!.getBoundingClientRect();
      const box = document.querySelector('figure[data-chart="pareto"] [data-chart-details]')!.getBoundingClientRect();
      return box.width > 0 && box.left >= figure.left - 1 && box.right <= figure.right + 1;
    });
    expect(inside).toBe(true);
    // The page's width, not the document's: a wide table elsewhere on the page must not widen the picture.
    await phone.screenshot({ path: join(ARTIFACTS, 'charts-375.png'), fullPage: true, clip: { x: 0, y: 0, width: 375, height: await phone.evaluate(() => document.documentElement.scrollHeight) } });
    await phone.locator(PARETO).screenshot({ path: join(ARTIFACTS, 'charts-375-pareto.png') });
    expect(await axeViolations(phone)).toEqual([]);
    await phone.close();
  }, 60_000);

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
