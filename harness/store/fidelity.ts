/**
 * The output-fidelity verdict of every run (docs/metrics.md#output-fidelity), after ingest: each
 * run's probe answers compared with its configuration's reference run's, written into the runs
 * table's fidelity_* columns. A verdict depends on another run (the reference), so it cannot be
 * read from one file as the other columns are: the probes are kept in a table of the store (read
 * once per file) and every verdict is recomputed on each compile.
 *
 * The reference rule: runs are compared within one configuration — the same model (the GGUF
 * file's sha256, else the model id and revision), precision, API and probe-set version. Its
 * reference is a completed run with answers of the designated reference engine: llama.cpp for
 * GGUF files (its ggml kernels define the format), vLLM for checkpoints, and a test engine (the
 * sim, the embedded engine) for a model only it serves, itself. Among those: a known release
 * before an unverified version, the oldest release, an official run before a community one, the
 * earliest run. A run of the reference's release passes or fails against it like any other run
 * (so the same release measured twice shows the engine's own determinism); the reference itself
 * compares with itself and passes.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FidelitySchema, type FidelityOutput } from '../contract/fidelity.ts';
import type { RunResult } from '../contract/result.ts';
import { compareAnswers, fidelityVerdict } from './fidelity-agreement.ts';
import { col, type Column, type Value } from './columns.ts';

/** The engine whose oldest known release answers as the configuration should. */
export function referenceEngine(result: RunResult): string {
  const run = result.run!;
  if (run.model.file?.format === 'gguf') return 'llamacpp';
  if (run.engine.name === 'sim' || run.engine.name === 'embedded') return run.engine.name;
  return 'vllm';
}

/** The configuration a probe is compared within, or null when the run has no answers to compare. */
export function fidelityKey(result: RunResult): string | null {
  const run = result.run;
  const fidelity = run?.fidelity;
  if (!run || !fidelity || fidelity.outputs.length === 0 || result.status !== 'completed') return null;
  const model = run.model.file ? `sha256:${run.model.file.sha256}` : `${run.model.id}@${run.model.revision ?? ''}`;
  return JSON.stringify([model, run.model.quantization, run.model.dtype, result.target.api, fidelity.probe_set.version, fidelity.probe_set.sha256]);
}

interface Candidate {
  readonly file: string;
  readonly runId: string;
  readonly engine: string;
  readonly known: boolean | null;
  readonly versionOrder: string | null;
  readonly official: boolean;
  readonly createdAt: string;
  readonly key: string;
  readonly referenceEngine: string;
  readonly outputs: FidelityOutput[];
}

/** Sort order of reference candidates: known release, oldest release, official, earliest, run id. */
function referenceOrder(a: Candidate, b: Candidate): number {
  const rank = (c: Candidate) => [c.known === true ? 0 : 1, c.versionOrder ?? '\uffff', c.official ? 0 : 1, c.createdAt, c.runId] as const;
  const x = rank(a);
  const y = rank(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

export interface FidelityRow {
  readonly file: string;
  readonly verdict: 'pass' | 'fail' | null;
  readonly identicalShare: number | null;
  readonly meanDivergence: number | null;
  readonly logprobDrift: number | null;
  readonly referenceRun: string | null;
}

/** Every candidate's verdict against its configuration's reference (null: none, or nothing to compare). */
export function judgeFidelity(candidates: readonly Candidate[]): FidelityRow[] {
  const references = new Map<string, Candidate>();
  for (const c of candidates) {
    if (c.engine !== c.referenceEngine) continue;
    const current = references.get(c.key);
    if (!current || referenceOrder(c, current) < 0) references.set(c.key, c);
  }
  return candidates.map((c) => {
    const reference = references.get(c.key);
    const agreement = reference ? compareAnswers(c.outputs, reference.outputs) : null;
    if (!reference || !agreement) return { file: c.file, verdict: null, identicalShare: null, meanDivergence: null, logprobDrift: null, referenceRun: null };
    return { file: c.file, verdict: fidelityVerdict(agreement), identicalShare: agreement.identicalShare, meanDivergence: agreement.meanDivergence, logprobDrift: agreement.logprobDrift, referenceRun: reference.runId };
  });
}

const sql = (value: string | null): string => (value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`);
const num = (value: number | null): string => (value === null ? 'NULL' : String(value));
/** Rows per INSERT statement. */
const BATCH = 500;

/** The store's fidelity_probes table: a row per valid run, staged by ingest's parse pass. */
export const PROBE_COLUMNS: readonly Column[] = [
  col('file', 'VARCHAR', null, 'The result file'),
  col('key', 'VARCHAR', null, 'The configuration its answers are compared within (fidelityKey); null: no answers to compare'),
  col('reference_engine', 'VARCHAR', null, 'The engine whose oldest known release answers for that configuration'),
  col('outputs', 'VARCHAR', null, 'Its probe answers, JSON'),
];

/** A checked run's fidelity_probes row, PROBE_COLUMNS in order (the parse pass stages it as it stages the run). */
export function probeValues(result: RunResult, file: string): Value[] {
  const key = fidelityKey(result);
  const outputs = key === null ? null : JSON.stringify(FidelitySchema.parse(result.run!.fidelity).outputs);
  return [file, key, referenceEngine(result), outputs];
}

/** Writes every run's fidelity columns from the probes ingest staged (after ingest). */
export async function applyFidelity(connection: DuckDBConnection): Promise<void> {
  const rows = (
    await connection.runAndReadAll(
      `SELECT r.file, r.run_id, r.engine, r.engine_version_known, r.engine_version_order, r.source, strftime(r.created_at, '%Y-%m-%dT%H:%M:%S'), p.key, p.reference_engine, p.outputs
       FROM valid_runs r JOIN fidelity_probes p ON p.file = r.file WHERE p.key IS NOT NULL`,
    )
  ).getRowsJS();
  const candidates: Candidate[] = rows.map((r) => ({
    file: String(r[0]),
    runId: String(r[1]),
    engine: String(r[2]),
    known: r[3] as boolean | null,
    versionOrder: r[4] as string | null,
    official: r[5] === 'official',
    createdAt: String(r[6]),
    key: String(r[7]),
    referenceEngine: String(r[8]),
    outputs: JSON.parse(String(r[9])) as FidelityOutput[],
  }));
  await connection.run('UPDATE runs SET fidelity_verdict = NULL, fidelity_identical_share = NULL, fidelity_mean_divergence = NULL, fidelity_logprob_drift = NULL, fidelity_reference_run = NULL');
  const judged = judgeFidelity(candidates).filter((row) => row.verdict !== null);
  await connection.run('CREATE OR REPLACE TEMP TABLE fidelity_verdicts (file VARCHAR, verdict VARCHAR, identical_share DOUBLE, mean_divergence DOUBLE, logprob_drift DOUBLE, reference_run VARCHAR)');
  for (let i = 0; i < judged.length; i += BATCH) {
    const values = judged.slice(i, i + BATCH).map((r) => `(${sql(r.file)}, ${sql(r.verdict)}, ${num(r.identicalShare)}, ${num(r.meanDivergence)}, ${num(r.logprobDrift)}, ${sql(r.referenceRun)})`);
    await connection.run(`INSERT INTO fidelity_verdicts VALUES ${values.join(', ')}`);
  }
  await connection.run(
    `UPDATE runs SET fidelity_verdict = v.verdict, fidelity_identical_share = v.identical_share, fidelity_mean_divergence = v.mean_divergence, fidelity_logprob_drift = v.logprob_drift, fidelity_reference_run = v.reference_run
     FROM fidelity_verdicts v WHERE runs.file = v.file`,
  );
}
