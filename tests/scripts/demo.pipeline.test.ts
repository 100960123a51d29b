/**
 * `npm run demo -- --no-serve`, the README's main job, end to end (the embedded engine on the dummy
 * `tiny` model, compile, the site build): its run lands in the scratch copy of results/
 * (out/demo/results/) and the compiled site, never in the tracked results/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const REPO = new URL('../..', import.meta.url).pathname;

const trackedResultsStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', 'results'], { cwd: REPO, encoding: 'utf8' });

it('writes its run into out/demo/results, leaves results/ as it was, and builds the site from both', { timeout: 600_000 }, () => {
  const before = trackedResultsStatus();
  const started = new Date().toISOString();
  const demo = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--no-serve'], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' } });
  expect(demo.status, demo.stderr.slice(-3000)).toBe(0);
  expect(trackedResultsStatus()).toBe(before);
  const scratch = join(REPO, 'out', 'demo', 'results');
  const files = (readdirSync(scratch, { recursive: true }) as string[]).filter((f) => f.endsWith('.json') && !f.startsWith('comparisons'));
  const demoRuns = files.map((f) => JSON.parse(readFileSync(join(scratch, f), 'utf8')) as { created_at: string; run?: { engine: { name: string } } }).filter((r) => r.created_at >= started);
  expect(demoRuns.map((r) => r.run?.engine.name)).toEqual(['embedded']);
  // Every tracked result is in the copy too: the site shows the lane and the demo run together.
  const tracked = execFileSync('git', ['ls-files', '--', 'results'], { cwd: REPO, encoding: 'utf8' }).trim().split('\n').filter((f) => f.endsWith('.json'));
  for (const file of tracked) expect(existsSync(join(scratch, file.slice('results/'.length))), file).toBe(true);
  // Built now, not left from an earlier build.
  expect(statSync(join(REPO, 'dist', 'site', 'index.html')).mtime.toISOString() >= started).toBe(true);
  expect(demo.stdout).toContain('servebench site built in dist/site');
});
