/**
 * Invalid releases on the history chart and the compare page in a real browser (Debian's chromium
 * through playwright-core), built from the SYNTHETIC runs of tests/kit/invalid-releases.ts (vllm
 * 1.1.0 answers the fidelity probe wrongly and is 2.5 times faster; sglang 2.1.0 missed the
 * prefix cache at c=8) compiled by the real store and served on 127.0.0.1: each drawn greyed and
 * open with its status and reason, off its engine's line, counted in a note under the chart and
 * never given a change on the compare page. Every expected value comes from the compiled JSON.
 * Screenshots go to test-artifacts/site/history-validity-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Release, Scenario } from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { formatNumber } from '../../site/lib/format.ts';
import { writeFixturePrices } from '../store/fixture-results.ts';
import { INVALID, writeInvalidReleases } from '../kit/invalid-releases.ts';
import { openBuiltSite, REPO, type ServedSite } from './built-site.ts';

const ARTIFACTS = join(REPO, 'test-artifacts', 'site');
const AXE = join(REPO, 'node_modules', 'axe-core', 'axe.min.js');
const HISTORY = 'figure[data-chart="history"]:not([hidden])';
const root = mkdtempSync(join(tmpdir(), 'servebench-history-validity-'));
let site: ServedSite;
let opened: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let browser: Browser;
let scenario: Scenario;
let history: Release[] = [];
const consoleErrors: string[] = [];

async function open(path: string, name: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (message) => (message.type() === 'error' ? consoleErrors.push(`${path}: ${message.text()}`) : undefined));
  page.on('pageerror', (error) => consoleErrors.push(`${path}: ${error.message}`));
  await page.goto(`${site.url}${path}`);
  await page.screenshot({ path: join(ARTIFACTS, `history-validity-${name}.png`), fullPage: true });
  return page;
}

async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: string[] }>> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

const release = (engine: string, version: string, load: string) => history.find((h) => h.engine === engine && h.engine_version === version && h.load === load)!;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeInvalidReleases(join(root, 'results'));
  const data = join(root, 'data');
  const report = await compile({ resultsDir: join(root, 'results'), outDir: data, prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  expect(report.problems).toEqual([]);
  scenario = (JSON.parse(readFileSync(join(data, 'site', 'scenarios.json'), 'utf8')) as Scenario[])[0]!;
  history = (JSON.parse(readFileSync(join(data, 'site', 'scenarios', `${scenario.scenario_id}.json`), 'utf8')) as { history: Release[] }).history;
  opened = await openBuiltSite(data, join(root, 'site'));
  ({ site, browser } = opened);
}, 240_000);

afterAll(() => opened?.close());

describe('invalid releases on the history chart and the compare page (SYNTHETIC)', () => {
  it('the history chart draws them grey and open, off their engines’ lines, with the reason in their details and a note counting them', async () => {
    const load = scenario.loads[scenario.loads.length - 1]!;
    expect(load).toBe('c=8');
    const page = await open(`/scenario/${scenario.scenario_id}/`, 'scenario');
    const point = (engine: string, version: string) => page.locator(`${HISTORY} g[data-point][data-engine="${engine}"][data-version="${version}"][data-load="${load}"]`);
    const wrong = point(INVALID.wrongOutput.engine, INVALID.wrongOutput.version);
    const wrongRow = release(INVALID.wrongOutput.engine, INVALID.wrongOutput.version, load);
    expect(wrongRow.validity).toBe('invalid_output');
    await expect(wrong.getAttribute('data-validity')).resolves.toBe('invalid_output');
    await expect(wrong.locator('.version-label').textContent()).resolves.toBe(`${INVALID.wrongOutput.version} (invalid output)`);
    // Grey and open: the page's muted colour, no fill; a valid release keeps its engine's colour, filled.
    const muted = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--muted').trim());
    const style = (locator: typeof wrong) => locator.locator('.dot').evaluate((dot) => ({ stroke: getComputedStyle(dot).stroke, fill: getComputedStyle(dot).fill }));
    const rgb = await page.evaluate((colour) => {
      const probe = document.createElement('span');
      probe.style.color = colour;
      document.body.append(probe);
      const value = getComputedStyle(probe).color;
      probe.remove();
      return value;
    }, muted);
    expect(await style(wrong)).toEqual({ stroke: rgb, fill: 'none' });
    const valid = await style(point('vllm', '1.0.0'));
    expect(valid.stroke).not.toBe(rgb);
    expect(valid.fill).toBe(valid.stroke);
    // Each engine's line joins its valid releases only: vllm 1.0.0 → 1.2.0, sglang 2.0.0 → 2.2.0.
    const line = (engine: string) => page.locator(`${HISTORY} g[data-series][data-engine="${engine}"] path.line`).evaluate((path) => [...path.getAttribute('d')!.matchAll(/[ML]([-\d.]+),([-\d.]+)/g)].map((m) => `${m[1]},${m[2]}`));
    const at = async (engine: string, version: string) => /translate\(([-\d.]+),([-\d.]+)\)/.exec((await point(engine, version).getAttribute('transform'))!)!.slice(1).join(',');
    expect(await line('vllm')).toEqual([await at('vllm', '1.0.0'), await at('vllm', '1.2.0')]);
    expect(await line('sglang')).toEqual([await at('sglang', '2.0.0'), await at('sglang', '2.2.0')]);
    // Hover: the details say why it is excluded (the native title is replaced by them).
    await wrong.locator('a').hover();
    const lines = await page.locator(`${HISTORY} [data-chart-details] p`).allInnerTexts();
    expect(lines.slice(0, 2)).toEqual([
      `vllm ${INVALID.wrongOutput.version} at ${load}, released ${wrongRow.release_date ?? 'date unknown'}, first measured ${wrongRow.first_run_date}`,
      `Excluded: invalid output, ${wrongRow.validity_reason}. Not joined into the line, never compared.`,
    ]);
    expect(lines[2]!.startsWith(`Output throughput: ${formatNumber(wrongRow.output_throughput as number)} tok/s`), lines[2]).toBe(true);
    // No noise band offered for it: it is not a step of its engine's line.
    expect(lines.some((l) => l.startsWith('Noise band'))).toBe(false);
    await page.mouse.move(0, 0);
    await point('vllm', '1.0.0').locator('a').hover();
    await expect(page.locator(`${HISTORY} [data-chart-details]`).innerText()).resolves.not.toContain('Excluded');
    // The key explains the grey open dot; the note counts what the chart excluded at its load.
    await expect(page.locator(`${HISTORY} [data-key-excluded]`).isVisible()).resolves.toBe(true);
    const note = page.locator('[data-history-excluded] details[data-excluded]');
    await expect(note.locator('summary').innerText()).resolves.toBe('2 releases excluded: 1 invalid output, 1 cache mismatch: greyed, shown but never ranked, compared or used as a baseline');
    await note.locator('summary').click();
    await expect(note.locator('li').allInnerTexts()).resolves.toEqual([
      `sglang 2.1.0 at c=8: cache mismatch, ${release('sglang', '2.1.0', 'c=8').validity_reason}`,
      `vllm 1.1.0 at c=8: invalid output, ${wrongRow.validity_reason}`,
    ]);
    // The history table under it: the same releases greyed with their badges (every load).
    const table = page.locator('table[data-history-table]');
    await expect(table.locator('tbody tr:not([data-validity="valid"])').evaluateAll((trs) => trs.map((tr) => `${tr.querySelectorAll('td')[0]!.textContent} ${tr.querySelectorAll('td')[2]!.textContent} ${tr.getAttribute('data-validity')}`).sort())).resolves.toEqual([
      'sglang c=8 cache_mismatch', 'vllm c=1 invalid_output', 'vllm c=8 invalid_output',
    ]);
    const colour = (selector: string) => table.locator(selector).first().locator('td').nth(3).evaluate((td) => getComputedStyle(td).color);
    expect(await colour('tbody tr[data-validity="invalid_output"]')).toBe(rgb);
    expect(await colour('tbody tr[data-validity="valid"]')).not.toBe(rgb);
    await page.locator('section[aria-labelledby="h-history"]').screenshot({ path: join(ARTIFACTS, 'history-validity-chart.png') });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it('compare shows an invalid side greyed with its reason and no change; two valid releases compare as before', async () => {
    const page = await open('/compare/?a=vllm%401.0.0&b=vllm%401.1.0', 'compare');
    const table = page.locator('table[data-compare-table]');
    await table.waitFor({ state: 'visible', timeout: 60_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'history-validity-compare-done.png'), fullPage: true });
    const rows = table.locator('tbody tr');
    await expect(rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-a-validity'), tr.getAttribute('data-b-validity')]))).resolves.toEqual([['valid', 'invalid_output'], ['valid', 'invalid_output']]);
    const reason = release('vllm', '1.1.0', 'c=8').validity_reason!;
    await expect(rows.first().locator('[data-validity-badge="B"]').innerText()).resolves.toBe('B: invalid output');
    await expect(rows.first().locator('[data-validity-badge="B"]').getAttribute('title')).resolves.toBe(reason);
    // Every change cell is a dash that says why; the B cells are greyed, the A cells are not.
    const changes = rows.locator('td[data-change]');
    await expect(changes.allInnerTexts()).resolves.toEqual(Array.from({ length: await changes.count() }, () => '–'));
    await expect(rows.first().locator('[data-not-compared]').first().getAttribute('title')).resolves.toBe(`not compared: B (vllm 1.1.0) invalid output: ${reason}`);
    const colours = await rows.first().evaluate((tr) => [...tr.querySelectorAll('td')].map((td) => `${td.getAttribute('data-validity') ?? '-'} ${getComputedStyle(td).color}`));
    const of = (validity: string) => new Set(colours.filter((c) => c.startsWith(`${validity} `)).map((c) => c.slice(validity.length + 1)));
    expect(of('invalid_output').size).toBe(1);
    expect(of('valid').size).toBe(1);
    expect([...of('invalid_output')][0]).not.toBe([...of('valid')][0]);
    const note = page.locator('details[data-excluded]');
    await expect(note.locator('summary').innerText()).resolves.toBe('2 configurations excluded: 2 invalid output: greyed, no change computed');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();

    // A cache miss at c=8 only: c=1 compares, c=8 does not.
    const cache = await open('/compare/?a=sglang%402.0.0&b=sglang%402.1.0', 'compare-cache');
    await cache.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const byLoad = await cache.locator('table[data-compare-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-b-validity'), tr.querySelector('td[data-change]')!.textContent]));
    expect(byLoad.map(([v]) => v)).toEqual(['valid', 'cache_mismatch']);
    expect(byLoad[0]![1]).toMatch(/^[+−±]\d/);
    expect(byLoad[1]![1]).toBe('–');
    await expect(cache.locator('details[data-excluded] summary').innerText()).resolves.toBe('1 configuration excluded: 1 cache mismatch: greyed, no change computed');
    await cache.close();

    // Two valid releases: a change wherever both have a value (a p99 that 64 requests cannot support has none), nothing excluded.
    const plain = await open('/compare/?a=vllm%401.0.0&b=vllm%401.2.0', 'compare-valid');
    await plain.locator('table[data-compare-table]').waitFor({ state: 'visible', timeout: 60_000 });
    const cells = await plain.locator('table[data-compare-table] tbody tr').evaluateAll((trs) => trs.flatMap((tr) => [...tr.querySelectorAll('td[data-change]')].map((td) => [td.previousElementSibling!.previousElementSibling!.textContent, td.previousElementSibling!.textContent, td.textContent])));
    expect(cells.filter(([a, b]) => a !== '–' && b !== '–').length).toBeGreaterThan(0);
    for (const [a, b, change] of cells) expect(change).toMatch(a !== '–' && b !== '–' ? /^[+−±]\d/ : /^–$/);
    await expect(plain.locator('[data-not-compared]').count()).resolves.toBe(0);
    await expect(plain.locator('details[data-excluded]').count()).resolves.toBe(0);
    await plain.close();
  }, 180_000);

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
