/**
 * The dry run itself: the temp checkout, the fakes, the nights of story.ts, then the report.
 * Its own verdict (ok) is only whether every step ran and exited as the workflow allows it.
 */
import { rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createCheckout } from './checkout.ts';
import { startFakes } from './fakes.ts';
import { alert, archiveNight, detectStep, runNight } from './night.ts';
import { writeReport } from './report.ts';
import { git, interrupted, stepEnv, stopStepsOnSignals, type Context } from './steps.ts';
import { GITHUB_REPO, NEXT_POLL_NIGHT, NIGHTS, PLANTED_CHANGES, REGRESSION_NIGHT } from './story.ts';
import type { DryRunReport, NightOutputs } from './types.ts';

export interface DryRunOptions {
  /** Keep the temp folder here (created; must be empty if it exists). Default: a new temp folder, removed after a clean run. */
  readonly keep?: string;
  /** Progress lines (default: stderr). */
  readonly log?: (line: string) => void;
}

/** Stand-in for $GITHUB_SERVER_URL (regress's links only; nothing is fetched from it). */
const GITHUB_SERVER_URL = 'https://github.com';

export async function runNightlyDryRun(options: DryRunOptions = {}): Promise<DryRunReport> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const checkout = createCheckout(options.keep);
  const { dir } = checkout;
  // The checkout's known-release list is the repository's (validate reads the harness's own
  // fleet/releases.json): the one detect appends to inside the temp checkout is read beside it.
  // The sim plays the planted regression's releases in every step (story.ts), confirm's A/Bs too.
  const env = { ...stepEnv(), SERVEBENCH_EXTRA_RELEASES: [process.env['SERVEBENCH_EXTRA_RELEASES'], join(dir, 'fleet', 'releases.json')].filter(Boolean).join(delimiter), SERVEBENCH_SIM_PERFORMANCE_CHANGES: PLANTED_CHANGES };
  const fakes = await startFakes();
  const ctx: Context = {
    ...checkout,
    fakeUrl: fakes.url,
    env,
    workflowEnv: {
      ...env,
      // What Actions sets for every step (stand-ins; regress builds its links from them).
      GITHUB_SERVER_URL,
      GITHUB_REPOSITORY: GITHUB_REPO,
      // The fakes, through the environment rather than flags (--github-api, --registry-url), so every argv is the workflow's.
      SERVEBENCH_GITHUB_API_URL: fakes.url,
      SERVEBENCH_REGISTRY_OVERRIDE: `docker.io=${fakes.url}`,
      // npm's own setting, which detect's packument GET and `npm pack` of a release both follow.
      npm_config_registry: fakes.url,
    },
    issueKey: fakes.issueKey,
    steps: [],
    log,
  };
  const nights: Record<string, NightOutputs> = {};
  const final: DryRunReport['final'] = { alert_rerun_writes: 0 };
  let error: string | null = null;
  const release = stopStepsOnSignals();
  try {
    for (const night of NIGHTS) {
      fakes.publishBefore(night);
      nights[String(night)] = await runNight(ctx, night);
      if (night === REGRESSION_NIGHT) {
        // Idempotence: the alert job run again on the same report (a re-run of the workflow) files nothing.
        const before = fakes.requestCount();
        final.alert_rerun = await alert(ctx, night, 'alert again');
        final.alert_rerun_writes = fakes.writesSince(before);
        ctx.steps.at(-1)!.counts['writes'] = final.alert_rerun_writes;
      }
      archiveNight(ctx, night);
    }
    // The next night's poll: the release whose runner died is new again (the state collect committed).
    final.detect = await detectStep(ctx, NEXT_POLL_NIGHT);
    archiveNight(ctx, NEXT_POLL_NIGHT);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    release();
    await fakes.close();
  }
  let commits: DryRunReport['commits'] = [];
  try {
    commits = git(dir, ['log', '--reverse', '--format=%H %s']).split('\n').filter((l) => l !== '').map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }));
  } catch (caught) {
    error ??= `git log in ${dir}: ${(caught as Error).message}`;
  }
  const ok = error === null && ctx.steps.every((s) => s.ok);
  const kept = options.keep !== undefined || !ok;
  const report: DryRunReport = { ok, dir, kept, wall_s: Math.round((performance.now() - started) / 100) / 10, steps: ctx.steps, nights, final, commits, github: fakes.summary(), error, interrupted: interrupted() };
  if (kept) writeReport(report);
  else rmSync(dir, { recursive: true, force: true });
  return report;
}
