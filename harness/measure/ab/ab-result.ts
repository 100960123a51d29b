/**
 * The output of `servebench ab`: one self-describing JSON holding the design, every block's two
 * full run results with the metric's values and log ratio, each pass's paired comparison, and the
 * verdict. Written whole (atomically) or not at all, also when an arm failed or a signal stopped
 * it (status says which; what was measured is kept). Its schema, validation and compile into the
 * site come with the A/B result kind in results/; until then these types are its definition.
 */
import type { HostFacts } from '../run/host.ts';
import type { Load, RunResult } from '../../contract/result.ts';
import type { Better, PairedComparison, PairedVerdict } from '../../lib/stats/paired.ts';

export const AB_SCHEMA_VERSION = 1;

/** AA: a pilot block (A against A); AB and BA: the order the two arms of a pass's block ran in. */
export type BlockOrder = 'AA' | 'AB' | 'BA';

export interface AbBlock {
  /** From 0 within its pass (or the pilot). */
  readonly index: number;
  readonly order: BlockOrder;
  /** Arm A's run (in the pilot: the first of the two A runs). */
  readonly a: RunResult;
  /** Arm B's run (in the pilot: the second A run). */
  readonly b: RunResult;
  readonly a_value: number;
  readonly b_value: number;
  /** ln(b_value / a_value). */
  readonly log_ratio: number;
}

export interface AbPass {
  readonly name: 'main' | 'confirm';
  readonly blocks: readonly AbBlock[];
  /** The paired t over this pass's blocks; null when the pass did not complete. */
  readonly comparison: PairedComparison | null;
}

/** Where the procedure stopped early, and the run that stopped it (kept: nothing measured is lost). */
export interface AbStop {
  readonly stage: 'pilot' | 'main' | 'confirm';
  readonly block: number;
  readonly arm: 'A' | 'B';
  readonly message: string;
  /** The arm run that failed or was interrupted, whole; its block's other run, if any, is in `partial_block`. */
  readonly run: RunResult;
  readonly partial_block: RunResult | null;
}

export interface AbArm {
  /** The release asked for (--a, --b). */
  readonly version: string;
  /** What its servers reported (run.engine.version of each arm run; a build's release for llama.cpp), distinct, in order. */
  readonly reported: readonly string[];
}

/** What an A/B and a bisection both say of themselves: when, the command, and what was compared on which metric. */
export interface ComparisonHeader {
  readonly started_at: string;
  readonly finished_at: string;
  /** The command line, credentials redacted; each arm's own `servebench run` line is in its result. */
  readonly command: readonly string[];
  readonly engine: string;
  readonly model: string;
  readonly workload: string;
  /** A compiled points column (harness/contract/metric-catalog.ts). */
  readonly metric: string;
  readonly better: Better;
}

export interface AbResult extends ComparisonHeader {
  readonly kind: 'ab';
  readonly schema_version: typeof AB_SCHEMA_VERSION;
  /** completed: every planned block ran and a verdict was reached; failed: an arm run failed; interrupted: a signal stopped it. */
  readonly status: 'completed' | 'failed' | 'interrupted';
  /** The one load point both arms ran. */
  readonly load: Load;
  readonly a: AbArm;
  readonly b: AbArm;
  /** --b equal to --a (--allow-aa): a check of the procedure, whose right verdict is "no change" or "inconclusive". */
  readonly aa_check: boolean;
  readonly unit: string;
  /** The relative change the blocks were sized to detect (--effect), at `power`. */
  readonly effect_target: number;
  readonly power: number;
  readonly margin: number;
  readonly alpha: number;
  /** The A/A pilot: its blocks, their log ratios and their SD, σ, which sized the passes. */
  readonly aa: { readonly blocks: readonly AbBlock[]; readonly ratios: readonly number[]; readonly sd_log_ratio: number | null };
  /** Blocks per pass, and whether --blocks gave them or the pilot's σ did; null when the pilot did not complete. */
  readonly blocks_per_pass: number | null;
  readonly blocks_from: 'pilot' | 'option';
  /** Whether a confirm pass was asked for (false: --no-confirm, the verdict is one pass's). */
  readonly confirm: boolean;
  readonly passes: readonly AbPass[];
  /** confirmVerdict of the two passes (of the main pass alone with --no-confirm); null unless completed. */
  readonly verdict: PairedVerdict | null;
  /** B against A over every block of every pass (paired t over all of them): exp(mean ln(B/A)) − 1; null unless completed. */
  readonly effect: number | null;
  /** Its 95% interval; null unless completed. */
  readonly interval: readonly [number, number] | null;
  readonly stopped: AbStop | null;
  /** The host the A/B ran on (as a run result records it), CPU steal over the whole procedure. */
  readonly host: HostFacts;
}
