/**
 * What names a regressed configuration across the pipeline: the key `alert` files an issue under
 * and `confirm` records its verdict under (one definition, so the two always meet), read from a
 * regress report's rows (report.ts).
 */
import { createHash } from 'node:crypto';
import type { AlertComparison, AlertRegression } from './report.ts';

/** The configuration an issue is about (all its load points). */
export interface ScenarioRef {
  readonly scenario_id: string;
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly workload: string;
  readonly methodology: string;
}

type Row = AlertRegression | AlertComparison;

/** Which configuration a row belongs to: regress's scenario id, else the names that make one. */
export function scenarioIdentity(r: Pick<Row, 'scenario_id' | 'model' | 'precision' | 'hardware' | 'workload' | 'methodology'>): string {
  return r.scenario_id !== '' ? `id:${r.scenario_id}` : ['names', r.model, r.precision, r.hardware, r.workload, r.methodology].join('|');
}

/** The issue key of an engine release on a configuration: the same every night. */
export function groupKey(engine: string, version: string, scenario: ScenarioRef): string {
  return createHash('sha256').update(['servebench-alert-group', engine, version, scenarioIdentity(scenario)].join('\u0000')).digest('hex').slice(0, 16);
}

export function scenarioOf(r: Row): ScenarioRef {
  return { scenario_id: r.scenario_id, model: r.model, precision: r.precision, hardware: r.hardware, workload: r.workload, methodology: r.methodology };
}
