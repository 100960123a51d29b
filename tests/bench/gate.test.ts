/**
 * The self-benchmark gate (bench/gate/): figures read out of the benches' own JSON, and the
 * verdict of a session against the one before it. The sessions here are SYNTHETIC bench documents
 * (bench:compile's shape) whose samples are fixed lists, so each verdict is known by hand; the
 * real benches and a planted slowdown run in gate.pipeline.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareFigure } from '../../bench/gate/compare.ts';
import { readBenchDocument } from '../../bench/gate/figures.ts';
import { gate, SESSION_FILE } from '../../bench/gate/sessions.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const MACHINE = { cpus: 2, cpu_model: 'Synthetic CPU', kernel: '6.0', node: 'v24.1.0' };

/**
 * A bench:compile document at 300 files with the given ingest and cold seconds (SYNTHETIC); `speed`
 * scales its other times, as a slower machine would.
 */
function compileDoc(ingest: number, cold = 2 * ingest, machine = MACHINE, speed = 1) {
  return { bench: 'compile', at: '2026-12-03T00:00:00Z', node: machine.node, cpus: machine.cpus, machine, synthetic: true, results: [{ files: 300, cold: { seconds: cold, max_rss_mb: 400, phases: { ingest, derive: 0.2 * speed } }, incremental_one_new_file: { runs: [0.5, 0.52, 0.49].map((seconds) => ({ seconds: seconds * speed })) } }] };
}

/** Reference times of bench:machine on the base machine (SYNTHETIC, ms). */
const REFERENCE = [100, 102, 99, 101, 100, 98, 103];

/** A bench:machine document of a machine `speed` times as slow as the base one (SYNTHETIC). */
function machineDoc(speed: number, machine = MACHINE) {
  return { bench: 'machine', at: '2026-12-03T00:00:00Z', machine, reference: { javascript_ms: REFERENCE.map((v) => v * speed), duckdb_ms: REFERENCE.map((v) => 3 * v * speed) } };
}

function session(dir: string, name: string, docs: unknown[], plant: string | null = null): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, SESSION_FILE), JSON.stringify({ at: name, git_commit: null, repeats: docs.length, benches: ['compile'], scale: {}, plant }));
  docs.forEach((doc, i) => writeFileSync(join(dir, name, `compile-${i}.json`), JSON.stringify(doc)));
}

function sessions(): string {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-gate-'));
  dirs.push(dir);
  return dir;
}

const BASE = [1.0, 1.05, 0.97];

describe('the figures of a bench document', () => {
  it('reads a committed bench:compile document: cold, phases, peak RSS and each incremental compile', () => {
    const doc = readBenchDocument(JSON.parse(readFileSync(new URL('../../bench/results/compile-20261129T220534Z.json', import.meta.url), 'utf8')))!;
    const byName = new Map(doc.figures.map((f) => [f.figure, f]));
    expect(byName.get('compile@100000 cold_s')!.values).toEqual([52.15]);
    expect(byName.get('compile@100000 ingest_s')!.values).toEqual([26.699]);
    expect(byName.get('compile@10000 incremental_s')!.values).toEqual([1.45, 1.49, 1.55]);
    expect(byName.get('compile@10000 peak_rss_mb')).toMatchObject({ values: [627], better: 'lower', unit: 'MB' });
    expect(doc.machineKey).toBe('2 × unknown cpu · node 24');
  });

  it('reads a bench:machine document as two reference figures', () => {
    const doc = readBenchDocument(machineDoc(1))!;
    expect(doc.figures.map((f) => [f.figure, f.unit, f.values.length])).toEqual([
      ['machine javascript_reference_ms', 'ms', 7],
      ['machine duckdb_reference_ms', 'ms', 7],
    ]);
    expect(doc.machineKey).toBe('2 × Synthetic CPU · node 24');
  });

  it('is null for a document no bench wrote', () => {
    expect(readBenchDocument({ bench: 'fidelity' })).toBeNull();
    expect(readBenchDocument(null)).toBeNull();
  });
});

describe('the verdict on one figure', () => {
  const samples = (values: number[], better: 'lower' | 'higher' = 'lower') => ({ figure: 'f', unit: 's', better, machine: 'm', values });

  it('a doubled time is a regression of +100% with an interval around it', () => {
    const c = compareFigure(samples(BASE), samples(BASE.map((v) => 2 * v)));
    expect(c.verdict).toBe('regressed');
    expect(c.changePct).toBeCloseTo(100, 10);
    expect(c.ci![0]).toBeLessThan(2);
    expect(c.ci![1]).toBeGreaterThan(2);
  });

  it('the same samples again are no change; a significant 5% is below the 10% threshold', () => {
    expect(compareFigure(samples(BASE), samples(BASE)).verdict).toBe('no change');
    const tight = [1, 1.001, 0.999];
    const c = compareFigure(samples(tight), samples(tight.map((v) => v * 1.05)));
    expect(c.pValue).toBeLessThan(0.001);
    expect(c.verdict).toBe('no change');
    // The threshold is inclusive, as regress's is.
    expect(compareFigure(samples(tight), samples(tight.map((v) => v * 1.05)), 5 - 1e-9).verdict).toBe('regressed');
  });

  it('a large change inside the noise is no change', () => {
    const noisy = [1, 2, 0.5];
    expect(compareFigure(samples(noisy), samples(noisy.map((v) => v * 1.3))).verdict).toBe('no change');
  });

  it('direction: a higher rate where higher is better improves; lower regresses', () => {
    expect(compareFigure(samples(BASE, 'higher'), samples(BASE.map((v) => 2 * v), 'higher')).verdict).toBe('improved');
    expect(compareFigure(samples(BASE, 'higher'), samples(BASE.map((v) => v / 2), 'higher')).verdict).toBe('regressed');
    expect(compareFigure(samples(BASE), samples(BASE.map((v) => v / 2))).verdict).toBe('improved');
  });

  it('a machine factor scales a time up and a rate down, and leaves memory, bytes and ratios as measured', () => {
    const slower = (values: number[], unit: string, better: 'lower' | 'higher', by: number) => compareFigure({ ...samples(values, better), unit }, { ...samples(values.map((v) => v * by), better), unit }, 10, 1.25);
    expect(slower(BASE, 's', 'lower', 1.25)).toMatchObject({ verdict: 'no change', machineFactor: 1.25 });
    expect(slower(BASE, 'ns', 'lower', 1.25).ratio!).toBeCloseTo(1, 10);
    expect(slower(BASE, 'events/s', 'higher', 1 / 1.25)).toMatchObject({ verdict: 'no change', machineFactor: 1.25 });
    for (const unit of ['MB', 'bytes', '×']) expect(slower(BASE, unit, 'lower', 1.25), unit).toMatchObject({ verdict: 'regressed', machineFactor: null });
  });

  it('without a baseline, or with one sample a side, it judges nothing', () => {
    expect(compareFigure(undefined, samples(BASE)).verdict).toBe('no baseline');
    const c = compareFigure(samples([1]), samples([3]));
    expect(c.verdict).toBe('too few samples');
    expect(c.changePct).toBeCloseTo(200, 10);
  });
});

describe('sessions', () => {
  it('the newest session against the one before: the planted 2× ingest regresses, the rest holds', () => {
    const dir = sessions();
    session(dir, '20261201T000000Z', BASE.map((v) => compileDoc(v)));
    session(dir, '20261202T000000Z', BASE.map((v) => compileDoc(2 * v)));
    const report = gate(dir, 10);
    expect(report.candidate).toBe('20261202T000000Z');
    const verdicts = Object.fromEntries(report.comparisons.map((c) => [c.figure, c.verdict]));
    expect(verdicts).toMatchObject({ 'compile@300 ingest_s': 'regressed', 'compile@300 derive_s': 'no change', 'compile@300 incremental_s': 'no change', 'compile@300 peak_rss_mb': 'no change' });
    // cold is 2 × ingest in both sessions here: it doubled as well.
    expect(verdicts['compile@300 cold_s']).toBe('regressed');
    expect(report.regressions).toBe(2);
    expect(report.comparisons.every((c) => c.baselineSession === '20261201T000000Z')).toBe(true);
  });

  it('compares only the same machine, and never against a planted session', () => {
    const dir = sessions();
    session(dir, '20261201T000000Z', BASE.map((v) => compileDoc(v, 2 * v, { ...MACHINE, cpus: 16 })));
    session(dir, '20261202T000000Z', BASE.map((v) => compileDoc(v / 2)), 'slow-ingest');
    session(dir, '20261203T000000Z', BASE.map((v) => compileDoc(v)));
    const report = gate(dir, 10);
    expect(new Set(report.comparisons.map((c) => c.verdict))).toEqual(new Set(['no baseline']));
    expect(report.regressions).toBe(0);
  });

  it('a machine a quarter slower at everything is no regression once its references say so (and would be without them)', () => {
    const slower = BASE.map((v) => compileDoc(1.25 * v, 2.5 * v, MACHINE, 1.25));
    const withReferences = sessions();
    session(withReferences, '20261201T000000Z', [...BASE.map((v) => compileDoc(v)), machineDoc(1)]);
    session(withReferences, '20261202T000000Z', [...slower, machineDoc(1.25)]);
    const report = gate(withReferences, 10);
    expect(report.regressions).toBe(0);
    const byFigure = new Map(report.comparisons.map((c) => [c.figure, c]));
    for (const figure of ['cold_s', 'ingest_s', 'derive_s', 'incremental_s']) {
      const c = byFigure.get(`compile@300 ${figure}`)!;
      expect(c.verdict, figure).toBe('no change');
      expect(c.machineFactor!).toBeCloseTo(1.25, 10);
      expect(c.ratio!).toBeCloseTo(1, 10);
    }
    // The report keeps what was measured; only the comparison scales.
    expect(byFigure.get('compile@300 ingest_s')!.baseline).toEqual(BASE);
    // Memory does not move with speed, and the references are reported, never judged.
    expect(byFigure.get('compile@300 peak_rss_mb')!.machineFactor).toBeNull();
    expect(byFigure.get('machine javascript_reference_ms')).toMatchObject({ verdict: 'machine reference', machineFactor: null });
    expect(byFigure.get('machine javascript_reference_ms')!.ratio!).toBeCloseTo(1.25, 10);

    const withoutReferences = sessions();
    session(withoutReferences, '20261201T000000Z', BASE.map((v) => compileDoc(v)));
    session(withoutReferences, '20261202T000000Z', slower);
    const unscaled = gate(withoutReferences, 10);
    for (const figure of ['cold_s', 'ingest_s', 'incremental_s']) expect(unscaled.comparisons.find((c) => c.figure === `compile@300 ${figure}`), figure).toMatchObject({ verdict: 'regressed', machineFactor: null });
  });

  it('a 2× ingest still regresses by 2× on a slower or a faster machine', () => {
    for (const speed of [1.25, 0.8]) {
      const dir = sessions();
      session(dir, '20261201T000000Z', [...BASE.map((v) => compileDoc(v)), machineDoc(1)]);
      session(dir, '20261202T000000Z', [...BASE.map((v) => compileDoc(2 * speed * v, 2 * speed * v, MACHINE, speed)), machineDoc(speed)]);
      const report = gate(dir, 10);
      const ingest = report.comparisons.find((c) => c.figure === 'compile@300 ingest_s')!;
      expect(ingest.verdict, `speed ${speed}`).toBe('regressed');
      expect(ingest.ratio!).toBeCloseTo(2, 10);
      // cold is given as what the baseline's would take on this machine (2 × speed × the base): it holds.
      expect(report.comparisons.find((c) => c.figure === 'compile@300 cold_s')!.verdict).toBe('no change');
      expect(report.comparisons.find((c) => c.figure === 'compile@300 derive_s')!.verdict).toBe('no change');
      expect(report.regressions).toBe(1);
    }
  });

  it('the machine speed is taken against the baseline session of each figure, and only from the same kind of machine', () => {
    const dir = sessions();
    const other = { ...MACHINE, cpus: 16 };
    // Each session also holds another kind of machine's references (3× slower in the last): they say nothing of this one.
    session(dir, '20261201T000000Z', [...BASE.map((v) => compileDoc(v)), machineDoc(1), machineDoc(1, other)]);
    // A session on another kind of machine only, with references twice as slow: not this machine's baseline.
    session(dir, '20261202T000000Z', [...BASE.map((v) => compileDoc(v, 2 * v, other)), machineDoc(2, other)]);
    session(dir, '20261203T000000Z', [...BASE.map((v) => compileDoc(1.25 * v, 2.5 * v, MACHINE, 1.25)), machineDoc(1.25), machineDoc(3, other)]);
    const report = gate(dir, 10);
    const ingest = report.comparisons.find((c) => c.figure === 'compile@300 ingest_s')!;
    expect(ingest.baselineSession).toBe('20261201T000000Z');
    expect(ingest.machineFactor!).toBeCloseTo(1.25, 10);
    expect(report.regressions).toBe(0);
  });

  it('a named candidate is judged against what came before it only', () => {
    const dir = sessions();
    session(dir, '20261201T000000Z', BASE.map((v) => compileDoc(v)));
    session(dir, '20261202T000000Z', BASE.map((v) => compileDoc(2 * v)));
    session(dir, '20261203T000000Z', BASE.map((v) => compileDoc(2 * v)));
    expect(gate(dir, 10, '20261202T000000Z').regressions).toBeGreaterThan(0);
    expect(gate(dir, 10).regressions).toBe(0);
    expect(() => gate(dir, 10, 'nope')).toThrow(/no bench session nope/);
  });
});
