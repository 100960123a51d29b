/**
 * The dry run's story: what the fakes publish before each night, and what is measured outside the
 * plan. tests/pipeline/nightly-dry-run.pipeline.test.ts reads the same constants to say what each
 * night must have found.
 *
 * Three nights and the next night's poll, so that regress, alert and collect's put-back have
 * something real to find:
 * - night 1: GitHub lists node-llama-cpp 3.21.0 and 3.21.1 (detect's first sighting reports the
 *   newest) and vLLM 0.11.0 with its image (reported; the dry-run fleet does not run vLLM, so
 *   plan notes it and plans nothing for it); the other engines' repositories have no release;
 * - night 2: node-llama-cpp 3.22.0 appears (reported once), vLLM 0.11.1 without its image yet
 *   (pending, not reported); alert then runs a second time, which must write nothing;
 * - night 3: node-llama-cpp 3.23.0 appears, and the runner of its job dies (no result, no
 *   artifact): collect names the job missing, exits 0 (no --require-all in production) and puts
 *   3.23.0 back to pending in the detect state, which is committed with the results;
 * - night 4, detect only: 3.23.0 is reported new again.
 * Each night runs tests/fixtures/fleet/dry-run.yaml's jobs: the embedded engine's nightly set and
 * the new release, on the smoke workload.
 *
 * The CPU lane. llama.cpp's releases come from npm (node-llama-cpp, engines/llamacpp.yaml
 * source.npm): a fake npm registry on the same loopback server lists LLAMACPP_RELEASES (real
 * tarballs, each with a one-commit git bundle, fetched by the real `npm pack`), so detect reports
 * them with the llama.cpp tag each bundles. Each night's report is then planned on the OFFICIAL
 * fleet's CPU lane (lane.ts: planned, not run; the dry-run fleet has no lane, so the workflow's
 * plan step there notes the llama.cpp release and plans nothing for it). Running the lane itself
 * (a llama.cpp build and 24 measurements, hours on 2 cores) is `npm run lane:cpu`'s job.
 *
 * The planted regression. The planner cannot express a release of the simulated engine (it has
 * no repository for detect), so nights 1 and 2 also measure a simulated release outside the plan:
 * `servebench run --engine sim --engine-version <release>` SIM_REPEATS times (repeats give
 * regress's Welch test its variance), the sim (its real cost model) playing that release with the
 * planted change of PLANTED_CHANGES, which every step's environment carries
 * ($SERVEBENCH_SIM_PERFORMANCE_CHANGES: engines/sim.yaml has no flag for it), so that the paired
 * A/B of `servebench confirm` on night 2 launches the same releases and finds the same change:
 *   night 1: sim "1.0.0+dryrun";
 *   night 2: sim "1.1.0+dryrun", every cost 1.5× (TPOT ≈ ×1.5 at concurrency 4, throughput ≈ ×0.67);
 * regress finds it, confirm confirms it by a paired A/B (no release between: nothing to bisect),
 * and alert files it with the paired verdict.
 * Every number comes from a real run against a real server; the names "+dryrun" say what they are.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const DRY_RUN_FLEET = join(REPO, 'tests', 'fixtures', 'fleet', 'dry-run.yaml');
/** The workflow whose steps the dry run mirrors (the test checks every command's flags against it). */
export const NIGHTLY_WORKFLOW = join(REPO, '.github', 'workflows', 'nightly.yml');
/** Stand-in for ${{ github.repository }} (alert --repo, and $GITHUB_REPOSITORY for regress's links). */
export const GITHUB_REPO = 'servebench/servebench';
/** Stand-in for ${{ github.ref_name }} (regress --ref): the branch the night commits to. */
export const BRANCH = 'main';
export const FAKE_TOKEN = 'ghp_dry_run_fake_token_not_a_secret';
export const ENGINE_REPO = 'withcatai/node-llama-cpp';
/** The night whose new-release job's runner dies (no result, no artifact), and the night that polls after it. */
export const RUNNER_DIES_NIGHT = 3;
export const NEXT_POLL_NIGHT = 4;
/** The nights that run the whole pipeline. */
export const NIGHTS = [1, 2, RUNNER_DIES_NIGHT] as const;
/** The new node-llama-cpp release published before each night (night 1 lists two: detect reports the newest). */
export const EMBEDDED_RELEASES: Readonly<Record<number, string>> = { 1: '3.21.1', 2: '3.22.0', 3: '3.23.0' };
/** What GitHub and Docker Hub list before each night: node-llama-cpp's tags (with their dates) and vLLM's (with its image, or none yet). */
export const GITHUB_RELEASES: Readonly<Record<number, ReadonlyArray<{ readonly repo: string; readonly tag: string; readonly published_at: string; readonly image?: string }>>> = {
  1: [
    { repo: ENGINE_REPO, tag: 'v3.21.0', published_at: '2026-10-01T12:00:00Z' },
    { repo: ENGINE_REPO, tag: 'v3.21.1', published_at: '2026-10-15T12:00:00Z' },
    { repo: 'vllm-project/vllm', tag: 'v0.11.0', published_at: '2026-10-02T12:00:00Z', image: 'vllm/vllm-openai' },
  ],
  2: [
    { repo: ENGINE_REPO, tag: 'v3.22.0', published_at: '2026-11-01T12:00:00Z' },
    { repo: 'vllm-project/vllm', tag: 'v0.11.1', published_at: '2026-11-02T12:00:00Z' },
  ],
  3: [{ repo: ENGINE_REPO, tag: 'v3.23.0', published_at: '2026-11-15T12:00:00Z' }],
};

/**
 * The node-llama-cpp releases the fake npm registry lists before each night, with the llama.cpp tag
 * each bundles (engines/llamacpp.yaml reads llama.cpp's releases from npm): night 1's first sighting
 * reports the newest, night 2 a new tag, night 3 a release that bundles night 2's tag again (seen,
 * with a note, not reported: the same engine build).
 */
export const LLAMACPP_RELEASES: Readonly<Record<number, ReadonlyArray<readonly [string, string]>>> = {
  1: [['3.21.0', 'b7000'], ['3.21.1', 'b7001']],
  2: [['3.22.0', 'b7100']],
  3: [['3.22.1', 'b7100']],
};
/** The official fleet, whose CPU lane each night's detect output is planned on (in process: the dry run's own fleet has no lane). */
export const OFFICIAL_FLEET = join(REPO, 'fleet', 'fleet.yaml');
/** Runs of the CPU lane per llama.cpp release: 2 models × 1 workload × 3 runs. */
export const LANE_RUNS = 6;

/** The simulated releases measured each night (see the header). */
export const SIM_RELEASES = [
  { night: 1, version: '1.0.0+dryrun' },
  { night: 2, version: '1.1.0+dryrun' },
] as const;
/** Runs of each simulated release (about 2 s each): enough for regress's Welch test to see the planted change through a busy machine's noise. */
export const SIM_REPEATS = 3;
/** The cost ratio planted between the two simulated releases. */
export const PLANTED_FACTOR = 1.5;
/** $SERVEBENCH_SIM_PERFORMANCE_CHANGES of every step: from the second release on, every cost ×PLANTED_FACTOR. */
export const PLANTED_CHANGES = `${SIM_RELEASES[1].version}:${PLANTED_FACTOR}`;
/** The word tokenizer, by absolute path: the runs' recorded command lines are replayed by confirm in the temp checkout. */
export const SIM_TOKENIZER = join(REPO, 'tests', 'fixtures', 'tokenizer-words');
/** The confirm job's matrix entry the dry run stands in for (nightly.yml: the CPU lane's class). */
export const CONFIRM_CLASS = { class: 'cpu-lane', hardware: 'cpu-' } as const;
/** The night regress finds the planted regression on (exit 1, "regressions found", is that night's expected exit). */
export const REGRESSION_NIGHT = SIM_RELEASES[1].night;
