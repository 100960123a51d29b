/**
 * The output of `servebench ab`: one self-describing JSON holding the design, every block's two
 * full run results with the metric's values and log ratio, each pass's paired comparison, and the
 * verdict. Written whole (atomically) or not at all, also when an arm failed or a signal stopped
 * it (status says which; what was measured is kept). Its one definition is the A/B result kind's
 * schema (harness/contract/comparison.ts), which the store validates and compiles.
 */
export { AB_SCHEMA_VERSION, type AbArm, type AbBlock, type AbPass, type AbResult, type AbStop, type BlockOrder, type ComparisonHeader } from '../../contract/comparison.ts';
