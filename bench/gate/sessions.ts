/**
 * Bench sessions: one folder per `npm run bench` (bench/sessions/<stamp>/), holding session.json
 * and every JSON its benches wrote, each bench run --repeats times. A session's samples of a
 * figure are pooled over its files; the gate compares the newest session with, per figure, the
 * latest earlier session that measured that figure on the same kind of machine, its times and
 * rates scaled by how much slower or faster the candidate's machine was than that session's
 * (machineFactor: bench:machine's references, which every session measures at its start and end).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareFigure, type FigureComparison, type FigureSamples } from './compare.ts';
import { isMachineReference, readBenchDocument } from './figures.ts';
import { median } from '../../harness/lib/stats/median.ts';

export const SESSION_FILE = 'session.json';

export interface SessionInfo {
  readonly at: string;
  readonly git_commit: string | null;
  readonly repeats: number;
  readonly benches: readonly string[];
  readonly scale: Record<string, unknown>;
  /** A planted regression (bench/plant/), only ever in the gate's own test. */
  readonly plant: string | null;
}

export interface Session {
  readonly name: string;
  readonly info: SessionInfo;
  /** Keyed by `<machine>|<figure>`. */
  readonly samples: ReadonlyMap<string, FigureSamples>;
}

const keyOf = (machine: string, figure: string) => `${machine}|${figure}`;

export function readSession(dir: string, name: string): Session {
  const folder = join(dir, name);
  const info = JSON.parse(readFileSync(join(folder, SESSION_FILE), 'utf8')) as SessionInfo;
  const samples = new Map<string, FigureSamples>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.json') && f !== SESSION_FILE).sort()) {
    const doc = readBenchDocument(JSON.parse(readFileSync(join(folder, file), 'utf8')));
    if (doc === null) continue;
    for (const f of doc.figures) {
      const key = keyOf(doc.machineKey, f.figure);
      const known = samples.get(key);
      samples.set(key, { figure: f.figure, unit: f.unit, better: f.better, machine: doc.machineKey, values: [...(known?.values ?? []), ...f.values] });
    }
  }
  return { name, info, samples };
}

/** Session folders in time order (their names are UTC stamps). */
export function sessionNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, SESSION_FILE)))
    .map((e) => e.name)
    .sort();
}

/**
 * The candidate machine's reference time over the baseline session's on the same kind of machine:
 * the geometric mean, over the reference figures both sessions measured, of the ratio of their
 * medians (a garbage collection or a neighbour's burst in one sample of seven moved the mean by
 * 4%, the median not at all); null when they share none (a session from before bench:machine).
 */
export function machineFactor(candidate: Session, baseline: Session, machine: string): number | null {
  const logRatios: number[] = [];
  for (const [key, samples] of candidate.samples) {
    if (samples.machine !== machine || !isMachineReference(samples.figure)) continue;
    const before = baseline.samples.get(key);
    if (before !== undefined) logRatios.push(Math.log(median(samples.values) / median(before.values)));
  }
  return logRatios.length === 0 ? null : Math.exp(logRatios.reduce((sum, r) => sum + r, 0) / logRatios.length);
}

export interface GateReport {
  readonly candidate: string;
  readonly thresholdPct: number;
  readonly comparisons: readonly (FigureComparison & { readonly baselineSession: string | null })[];
  readonly regressions: number;
}

/** The candidate session (default: the newest) against, per figure, the latest earlier session that has it. */
export function gate(dir: string, thresholdPct: number, candidateName?: string): GateReport {
  const names = sessionNames(dir);
  const candidate = candidateName ?? names.at(-1);
  if (candidate === undefined || !names.includes(candidate)) throw new Error(`no bench session ${candidate ?? ''} under ${dir}: run \`npm run bench\` first`);
  const current = readSession(dir, candidate);
  // Newest first, read only until every figure has its baseline: the nightly's sessions pile up.
  const baselines = new Map<string, Session>();
  for (const name of names.slice(0, names.indexOf(candidate)).reverse()) {
    if (baselines.size === current.samples.size) break;
    const session = readSession(dir, name);
    // A planted session (the gate's own test) is never anyone's baseline.
    if (session.info.plant !== null) continue;
    for (const key of current.samples.keys()) if (!baselines.has(key) && session.samples.has(key)) baselines.set(key, session);
  }
  // One factor per baseline session and machine, however many figures share it.
  const factors = new Map<string, number | null>();
  const factorAgainst = (base: Session, machine: string): number | null => {
    const key = keyOf(machine, base.name);
    const known = factors.get(key);
    if (known !== undefined) return known;
    const factor = machineFactor(current, base, machine);
    factors.set(key, factor);
    return factor;
  };
  const comparisons = [...current.samples.entries()].map(([key, samples]) => {
    const base = baselines.get(key);
    const factor = base === undefined ? null : factorAgainst(base, samples.machine);
    return { ...compareFigure(base?.samples.get(key), samples, thresholdPct, factor), baselineSession: base?.name ?? null };
  });
  comparisons.sort((a, b) => a.figure.localeCompare(b.figure));
  return { candidate, thresholdPct, comparisons, regressions: comparisons.filter((c) => c.verdict === 'regressed').length };
}
