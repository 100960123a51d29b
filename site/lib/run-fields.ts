/**
 * What a run page shows of a run and its load points, and how each value reads: one definition
 * for the prerendered run pages (site/pages/run/[id].astro) and the lookup page that renders any
 * published run in the browser (run-lookup-client.ts). Browser-safe: no build-time data.
 */
import { VALIDITY_LABELS, type Validity } from '../../harness/contract/validity.ts';
import { formatNumber, samplesOf, visibleText } from './format.ts';

export const PROVENANCE: ReadonlyArray<readonly [string, string]> = [
  ['engine', 'Engine'], ['engine_version', 'Version'], ['launcher', 'Launcher'], ['image', 'Image'], ['image_digest', 'Image digest'], ['command', 'Serve command'],
  ['model', 'Model'], ['model_weights', 'Model weights'], ['model_revision', 'Model revision'], ['precision', 'Precision'], ['parameters', 'Serve parameters'],
  ['hardware', 'Hardware'], ['gpu_memory_mib', 'GPU memory (MiB)'], ['driver', 'Driver'], ['cuda', 'CUDA'], ['host_cpu', 'Host CPU'], ['host_cpus', 'Host CPUs'], ['host_virtualization', 'Host virtualization'], ['host_steal_pct', 'CPU steal (%)'], ['host_os', 'Host OS'],
  ['workload', 'Workload'], ['workload_sha256', 'Workload sha256'], ['lengths_effective', 'Prompt lengths'], ['tokenizer', 'Tokenizer'], ['api', 'API'],
  ['harness_version', 'servebench'], ['harness_git_commit', 'servebench commit'], ['harness_git_dirty', 'Uncommitted changes'], ['methodology', 'Methodology'],
  ['source', 'Source'], ['status', 'Status'], ['created_at', 'Started (UTC)'], ['finished_at', 'Finished (UTC)'], ['failure_phase', 'Failed in'], ['failure_message', 'Failure'],
  ['probe_ignore_eos', 'ignore_eos honoured'], ['probe_usage', 'Usage streaming'], ['file', 'Result file'], ['file_sha256', 'File sha256'],
];

export const POINT_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['requests_sent', 'Sent'], ['completed', 'OK'], ['failed', 'Failed'], ['isl', 'ISL'], ['osl', 'OSL'], ['output_throughput', 'Output tok/s'], ['request_throughput', 'req/s'],
  ['steady_output_throughput', 'Steady tok/s'],
  ['ttft_ms_p50', 'TTFT p50 ms'], ['ttft_ms_p99', 'TTFT p99 ms'], ['tpot_ms_p50', 'TPOT p50 ms'], ['tpot_ms_p95', 'TPOT p95 ms'], ['itl_ms_p99', 'ITL p99 ms'], ['e2el_ms_p50', 'E2E p50 ms'],
  ['interactivity_tok_s_p50', 'tok/s/user'], ['gpu_peak_memory_mib', 'GPU mem MiB'], ['gpu_mean_power_w', 'Power W'], ['cost_per_1m_output_tokens', '$ / 1M tok'],
];

type Row = Readonly<Record<string, unknown>>;

/** Free text (host OS, failure message, serve command) displays as what it is: invisible characters as visible ⟨U+…⟩. */
export const shown = (value: unknown): string => (value === null || value === undefined || value === '' ? '–' : visibleText(value));

/** Validate lets only a 40-hex commit through; anything else (older compiled data) reads as unknown. */
export const harnessCommit = (run: Row): string | null => (typeof run.harness_git_commit === 'string' && /^[0-9a-f]{40}$/.test(run.harness_git_commit) ? run.harness_git_commit : null);

/** The lengths by the file's own evidence; a raw claim that differs is only what the file says. */
const lengths = (run: Row) => `${shown(run.lengths_effective)}${run.lengths_reason ? `: ${visibleText(run.lengths_reason)}` : ''}${run.lengths !== run.lengths_effective ? ` (the file says ${shown(run.lengths)})` : ''}`;

/**
 * A provenance row's text. The hardware key names the result's folder: shown beside its lane's
 * name (`hardware`). Weights: null is the published checkpoint's.
 */
export function provenanceText(run: Row, key: string, hardware: string): string {
  if (key === 'lengths_effective') return lengths(run);
  if (key === 'harness_git_commit') return harnessCommit(run) ?? 'unknown commit';
  if (key === 'hardware') return `${hardware} (key ${visibleText(run.hardware)})`;
  if (key === 'model_weights') return run.model_weights === 'dummy' ? 'dummy (seeded random weights of the real shape)' : run.model_weights === null || run.model_weights === undefined ? 'published checkpoint' : shown(run.model_weights);
  return shown(run[key]);
}

/** A percentile its samples cannot support reads as its sample size, never as a number. */
export const pointCell = (p: Row, key: string): string => samplesOf(p, key)?.text ?? formatNumber(p[key]);

/** Older compiled data has no validity: read as valid, as compile would have judged nothing. */
export const validityOf = (p: Row): Validity => (typeof p.validity === 'string' && p.validity in VALIDITY_LABELS ? (p.validity as Validity) : 'valid');

/** What the Reproduce block is, above it: at which commit, with which image. */
export function reproduceNote(commit: string | null, imageDigest: unknown): string {
  return `One block for a shell: servebench ${commit ? 'at the exact commit that made this run' : 'at an unknown commit (the result records none, so the block checks out nothing)'}${typeof imageDigest === 'string' ? ', the engine image pinned by its digest' : ''}, the same command read by servebench's own options (machine-local ones left out).`;
}

/** Where the block would be, for a run whose recorded command does not read as servebench's. */
export const NO_REPRODUCE_BLOCK = 'No block: this run\'s recorded command line does not read as a servebench command, and only that is ever offered to paste into a shell.';

/** Where the raw result file is read: the repository's copy; null when the build names no repository. */
export const rawResultUrl = (repository: string | null, file: unknown): string | null => (repository ? `${repository}/blob/main/results/${String(file)}` : null);
