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

/** A bench:compile document at 300 files with the given ingest and cold seconds (SYNTHETIC). */
function compileDoc(ingest: number, cold = 2 * ingest, machine = MACHINE) {
  return { bench: 'compile', at: '2026-12-03T00:00:00Z', node: machine.node, cpus: machine.cpus, machine, synthetic: true, results: [{ files: 300, cold: { seconds: cold, max_rss_mb: 400, phases: { ingest, derive: 0.2 } }, incremental_one_new_file: { runs: [{ seconds: 0.5 }, { seconds: 0.52 }, { seconds: 0.49 }] } }] };
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
