/** The human summary `servebench ab` prints: the design, one row per pass, and the verdict. */
import { describeLoad } from '../load/describe-load.ts';
import type { AbBlock, AbResult } from './ab-result.ts';

const percent = (value: number | null): string => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}%`);
const interval = (range: readonly [number, number] | null): string => (range === null ? '–' : `[${percent(range[0])}, ${percent(range[1])}]`);
const pValue = (p: number | null): string => (p === null ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3));

/** The geometric mean of one arm's values over the blocks (the scale the test works on). */
function geometricMean(values: readonly number[]): string {
  if (values.length === 0) return '–';
  const mean = Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  return mean >= 100 ? mean.toFixed(0) : mean.toPrecision(3);
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

export function formatAbSummary(ab: AbResult): string {
  const arm = (blocks: readonly AbBlock[], which: 'a' | 'b') => geometricMean(blocks.map((block) => (which === 'a' ? block.a_value : block.b_value)));
  const rows: string[][] = [['pass', 'blocks', `A ${ab.unit}`, `B ${ab.unit}`, 'effect', '95% interval', 'p', 'verdict']];
  rows.push(['A/A pilot', String(ab.aa.blocks.length), arm(ab.aa.blocks, 'a'), arm(ab.aa.blocks, 'b'), '', '', '', '']);
  for (const pass of ab.passes) {
    const c = pass.comparison;
    rows.push([pass.name, String(pass.blocks.length), arm(pass.blocks, 'a'), arm(pass.blocks, 'b'), percent(c?.effect ?? null), interval(c?.interval ?? null), pValue(c?.p ?? null), c?.verdict ?? 'not completed']);
  }
  const sigma = ab.aa.sd_log_ratio === null ? '–' : ab.aa.sd_log_ratio.toFixed(4);
  const sized =
    ab.blocks_per_pass === null ? '' : ab.blocks_from === 'option' ? `${ab.blocks_per_pass} blocks per pass (--blocks)` : `${ab.blocks_per_pass} blocks per pass, to detect ±${(ab.effect_target * 100).toFixed(0)}% at power ${ab.power} given the pilot's σ`;
  const lines = [
    `A/B of ${ab.engine}: A ${ab.a.version} against B ${ab.b.version}${ab.aa_check ? ' (A/A check)' : ''}; ${ab.metric} (${ab.better} is better), ${ab.workload} at ${describeLoad(ab.load)}`,
    `A/A pilot: σ of ln(A₂/A₁) ${sigma}${sized ? ` → ${sized}` : ''}.`,
    `Equivalence margin ±${(ab.margin * 100).toFixed(1)}%, α ${ab.alpha}; ABBA blocks, each arm run a fresh launch with its warmup.`,
    '',
    ...table(rows),
    '',
  ];
  if (ab.status === 'completed') {
    const all = ab.passes.reduce((sum, pass) => sum + pass.blocks.length, 0);
    const how = ab.confirm ? 'both passes agree' : 'one pass, NOT confirmed (--no-confirm)';
    const agreement = ab.confirm && ab.verdict === 'inconclusive' && ab.passes[0]!.comparison!.verdict !== ab.passes[1]!.comparison!.verdict ? 'the passes disagree' : how;
    lines.push(`Verdict: ${ab.verdict} (${agreement}). B against A over all ${all} blocks: ${percent(ab.effect)}, 95% interval ${interval(ab.interval)}.`);
  } else {
    const stop = ab.stopped!;
    lines.push(`No verdict: the A/B was ${ab.status} at ${stop.stage} block ${stop.block + 1}, arm ${stop.arm}: ${stop.message}.`);
  }
  return `${lines.join('\n')}\n`;
}
