/**
 * `alert --confirmations`: only what `servebench confirm` confirmed by a paired A/B reaches an
 * issue. Every other regression of the report (no change, inconclusive, faster, a failed run, not
 * examined, or absent from the confirmations) is listed as "not confirmed" with the verdict and
 * interval that failed to confirm it, and leaves the issues as they are: it is taken out of the
 * regressions, and its comparison out of the comparisons, so it neither files, updates nor reopens
 * an issue, nor counts as "measured again without the regression" (which would close one).
 */
import type { Confirmation } from '../confirm/confirmations.ts';
import { pairedEffect } from '../confirm/summary.ts';
import { cellId, scenarioIdentity, type GroupState } from './groups.ts';
import type { AlertComparison, AlertRegression, RegressionReport } from '../regressions/report.ts';
import { noteOf, type PairedNote } from './paired-notes.ts';

export interface NotConfirmed {
  readonly regression: AlertRegression;
  /** Its confirmation; null when the confirmations do not name it (confirm did not see it). */
  readonly confirmation: Confirmation | null;
}

export interface Confirmed {
  /** The report with the confirmed regressions only (and the comparisons of everything else). */
  readonly report: RegressionReport;
  readonly notConfirmed: readonly NotConfirmed[];
}

const rowIdentity = (r: AlertRegression | AlertComparison) => [r.engine, r.previous_version, r.version, scenarioIdentity(r), cellId(r)].join('\u0000');

export function applyConfirmations(report: RegressionReport, confirmations: ReadonlyMap<string, Confirmation>): Confirmed {
  const kept: AlertRegression[] = [];
  const notConfirmed: NotConfirmed[] = [];
  for (const regression of report.regressions) {
    const confirmation = confirmations.get(regression.key) ?? null;
    if (confirmation?.status === 'confirmed') kept.push(regression);
    else notConfirmed.push({ regression, confirmation });
  }
  const dropped = new Set(notConfirmed.map(({ regression }) => rowIdentity(regression)));
  const comparisons = report.comparisons === null ? null : report.comparisons.filter((c) => !dropped.has(rowIdentity(c)));
  return { report: { ...report, regressions: kept, comparisons }, notConfirmed };
}

/**
 * The state with the notes of its regressed cells: tonight's confirmation of a cell where there is
 * one, else the note the issue held for it; a cell that no longer regresses drops its note. Without
 * confirmations (alert without --confirmations) the issue keeps the notes it held.
 */
export function withPairedNotes(state: GroupState, rows: readonly AlertRegression[], old: GroupState | null, confirmations: ReadonlyMap<string, Confirmation> | null): GroupState {
  const tonight = new Map<string, PairedNote>();
  for (const row of rows) {
    const note = noteOf(confirmations?.get(row.key));
    if (note !== null) tonight.set(cellId(row), note);
  }
  const held = new Map((old?.paired ?? []).map((note) => [cellId(note), note]));
  const notes = state.cells.flatMap((cell) => {
    const note = tonight.get(cellId(cell)) ?? held.get(cellId(cell));
    return note === undefined ? [] : [note];
  });
  const { paired: _, ...rest } = state;
  // No key at all without notes: the state of an issue filed before confirm existed reads back unchanged.
  return notes.length === 0 ? rest : { ...rest, paired: notes };
}

/** One line per regression that was not confirmed: where, what regress said, and the paired verdict and interval that failed to confirm it. */
export function notConfirmedLine({ regression: r, confirmation: c }: NotConfirmed): string {
  const change = `${r.change_pct >= 0 ? '+' : '−'}${Math.abs(r.change_pct).toFixed(1)}%`;
  const why = c === null ? 'not in the confirmations (confirm did not examine it)' : c.paired === null ? `${c.reason}: ${c.detail}` : `${c.reason}, paired ${pairedEffect(c)}`;
  const line = `not confirmed ${r.engine} ${r.version} vs ${r.previous_version} on ${r.model} / ${r.hardware} / ${r.workload}: ${r.metric} @ ${r.load} (regress ${change}): ${why}`;
  // Names from result files reach a terminal or a CI log here: no escape sequences.
  return `${line.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')}\n`;
}

/** The JSON summary's entry of a regression that was not confirmed. */
export function notConfirmedJson({ regression: r, confirmation: c }: NotConfirmed) {
  return {
    key: r.key,
    engine: r.engine,
    version: r.version,
    previous_version: r.previous_version,
    metric: r.metric,
    load: r.load,
    change_pct: r.change_pct,
    reason: c?.reason ?? 'absent',
    detail: c?.detail ?? 'not in the confirmations',
    verdict: c?.paired?.verdict ?? null,
    effect: c?.paired?.effect ?? null,
    interval: c?.paired?.interval ?? null,
    ab_file: c?.paired?.file ?? null,
  };
}
