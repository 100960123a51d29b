#!/usr/bin/env -S npx tsx
/**
 * An end-to-end DRY RUN of the nightly pipeline on this machine (`npm run nightly:dry-run`), with
 * the embedded CPU engine standing in for the GPU fleet: detect (against a fake GitHub, Docker Hub
 * and npm registry) → plan → every planned job → collect → verify → summarize → commit → compile →
 * site build → regress → confirm (a paired A/B of each regression) → alert (to a fake GitHub and
 * a fake Slack webhook), each step the real CLI as a child process, as
 * .github/workflows/nightly.yml runs it on a scheduled night in direct-commit mode
 * (SERVEBENCH_COMMIT_DIRECT=true).
 *
 * Mirroring production. The temp folder is laid out as the workflow's checkout and is a git
 * repository (nightly-dry-run/checkout.ts); every servebench command of the workflow runs in it
 * with exactly the flags nightly.yml passes (relative paths and defaults included, so `detect`
 * polls every engine in engines/ as a scheduled night does), and each night's results and state
 * are committed as the workflow's "Commit to the branch" step does, so `summarize --base HEAD` and
 * `regress --base <the commit before the night>` both run for real (nightly-dry-run/night.ts).
 * What reaches GitHub, Docker Hub and the webhook goes through the environment instead
 * (SERVEBENCH_GITHUB_API_URL, SERVEBENCH_REGISTRY_OVERRIDE, SERVEBENCH_WEBHOOK_URL: the loopback
 * fakes of nightly-dry-run/fakes.ts), so no flag differs. The nights' story (what is released
 * when, the planted regression, the runner that dies) is nightly-dry-run/story.ts.
 *
 * A report, not a test: it runs the nights and writes what happened (report.json, and the
 * Markdown report appended to DRY-RUN.md, which it also prints), and exits 0 when every step ran
 * and exited as the workflow allows it. Whether the nights found what the story planted (each
 * release reported once, the regression found and filed once, the dead runner's job missing and
 * put back) is asserted by tests/pipeline/nightly-dry-run.pipeline.test.ts, which runs it once.
 *
 * A dev script, never shipped: it imports the loopback fakes of the test kit (tests/kit/fakes/).
 * Nothing leaves the machine, and everything is written into a temp folder (never the
 * repository's results/ or fleet/), which marks itself as a dry run (DRY-RUN.md, results/README.md).
 *
 *   npx tsx tests/kit/nightly-dry-run.ts [--keep DIR] [--json]
 */
import { parseArgs } from 'node:util';
import { formatReport } from './nightly-dry-run/report.ts';
import { runNightlyDryRun } from './nightly-dry-run/run.ts';
import type { DryRunReport } from './nightly-dry-run/types.ts';

const HELP = `nightly-dry-run: an end-to-end dry run of the servebench nightly pipeline on this machine

Usage: npx tsx tests/kit/nightly-dry-run.ts [--keep DIR] [--json]

detect (fake GitHub, Docker Hub and npm) → plan (tests/fixtures/fleet/dry-run.yaml) → every planned
job (the embedded CPU engine) → collect → verify → summarize → commit → compile → site build →
regress → confirm → alert (fake GitHub issues + webhook), each servebench step with the flags
.github/workflows/nightly.yml passes, in a temp folder that is a git repository laid out as the
workflow's checkout. Three nights: a planted regression of the simulated engine (every cost 1.5x)
on night 2, confirmed by a paired A/B before it is filed; on night 3 the new release's runner dies;
then the next night's detect.
Everything on 127.0.0.1. Writes report.json and DRY-RUN.md in the folder and prints the report;
tests/pipeline/nightly-dry-run.pipeline.test.ts checks what the nights found.

Options:
  --keep DIR  Run in DIR (new or empty) and keep it: results, compiled data, site, logs, reports.
              Default: a temp folder, removed after a clean run (kept, and named, after a failure).
  --json      Print the report as JSON instead of Markdown.
  --help      Show this help and exit.

Exit status: 0 every step ran and exited as the workflow allows it, 1 otherwise, 2 bad usage,
130/143 interrupted.
`;

async function cliMain(argv: readonly string[]): Promise<number> {
  let values: { keep?: string | undefined; json?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { keep: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    process.stderr.write(`nightly-dry-run: ${(error as Error).message}\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  let report: DryRunReport;
  try {
    report = await runNightlyDryRun(values.keep === undefined ? {} : { keep: values.keep });
  } catch (error) {
    process.stderr.write(`nightly-dry-run: ${(error as Error).message}\n`);
    return 2;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  if (report.interrupted !== null) return report.interrupted === 'SIGINT' ? 130 : 143;
  return report.ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await cliMain(process.argv.slice(2));
}
