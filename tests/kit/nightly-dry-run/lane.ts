/**
 * The official fleet's CPU lane planned for a night's detect output, in process (the dry-run
 * fleet has no lane): what the workflow's plan job would hand the lane, checked, not run.
 */
import { loadFleet, loadNewReleases, planLoadedFleet } from '../../../harness/pipeline/plan/inputs.ts';
import { renderLanes } from '../../../harness/pipeline/plan/lanes.ts';
import { renderMatrix } from '../../../harness/pipeline/plan/matrix.ts';
import { OFFICIAL_FLEET } from './story.ts';
import type { NightOutputs } from './types.ts';

/**
 * The CPU lane of fleet/fleet.yaml planned for the night's detect output, as the workflow's plan job
 * plans it (the same functions as `servebench plan --format matrix`): checked, not run. One lane job
 * builds llama.cpp (minutes) and runs 24 measurements (about two hours on 2 cores); the dry run stays
 * at a few minutes, so it reports the runs' commands instead (the dry run's test checks them, and
 * tests/pipeline/lane-plan.test.ts against `servebench run`'s and `servebench llamacpp`'s option tables).
 */
export function planLane(detected: string): NonNullable<NightOutputs['lane']> {
  const loaded = loadFleet(OFFICIAL_FLEET);
  const plan = planLoadedFleet(OFFICIAL_FLEET, loaded, {
    nightly: true,
    releases: loadNewReleases(detected),
    engineFilter: ['llamacpp'],
  });
  const runs: Record<string, number> = {};
  for (const job of plan.jobs) runs[job.version] = (runs[job.version] ?? 0) + 1;
  const lanes = renderLanes(plan, loaded.fleet).include;
  const inLanes = new Set(lanes.flatMap((l) => l.jobs.map((j) => j.job_id)));
  return {
    runs,
    lanes: lanes.length,
    builds: [...new Set(lanes.map((l) => l.build))].sort(),
    in_matrix: renderMatrix(plan, loaded.fleet).include.length,
    jobs: plan.jobs.map((job) => ({ id: job.id, version: job.version, in_lane: inLanes.has(job.id), build: job.build ? [...job.build.argv] : null, argv: [...job.argv] })),
  };
}
