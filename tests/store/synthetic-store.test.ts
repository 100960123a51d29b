/**
 * SYNTHETIC results (bench/lib/synthetic-results.ts) pass every content check by design, so the
 * published store refuses them by their mark, and only there: the repository's results/ (by real
 * path, a link to it included), never the temporary folders tests and benchmarks compile.
 * The fixture here is synthetic; the measured ones are the committed results/.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { syntheticMark } from '../../harness/contract/synthetic.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { isInRepositoryResults, REPOSITORY_RESULTS_DIR } from '../../harness/store/repository-results.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { publishedStoreOf } from '../../harness/store/parse-batch.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns } from './fixture-results.ts';

const temp = mkdtempSync(join(tmpdir(), 'servebench-synthetic-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const synthetic = syntheticResult(fixtureRuns()[0]!);
const text = `${JSON.stringify(synthetic, null, 2)}\n`;
const rules = (problems: ReadonlyArray<{ message: string }>) => problems.map((p) => /^\[([^\]]+)\]/.exec(p.message)?.[1]);

describe('the synthetic mark', () => {
  it('is the host OS the test kit writes, or a workload described as SYNTHETIC', () => {
    expect(syntheticMark(synthetic)).toBe('run.host.os');
    const described = structuredClone(synthetic) as RunResult;
    described.run!.host.os = 'Linux 6.8.0';
    expect(syntheticMark(described)).toBe('workload.spec.description');
    described.workload.spec.description = 'Chat, a measured scenario (SYNTHETIC only inside the text)';
    expect(syntheticMark(described)).toBeNull();
  });

  it('marks none of the committed results: each was measured', () => {
    const files = listResultFiles(REPOSITORY_RESULTS_DIR).files;
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(syntheticMark(JSON.parse(readFileSync(file.absolutePath, 'utf8')) as RunResult), file.relativePath).toBeNull();
  });
});

describe('the published store', () => {
  it('is the repository\'s results/, its files, and a link to it; not a temp folder or a look-alike sibling', () => {
    expect(isInRepositoryResults(REPOSITORY_RESULTS_DIR)).toBe(true);
    expect(isInRepositoryResults(join(REPOSITORY_RESULTS_DIR, '2026-12-02', 'x.json'))).toBe(true);
    const link = join(temp, 'linked-results');
    symlinkSync(REPOSITORY_RESULTS_DIR, link);
    expect(isInRepositoryResults(join(link, 'anything.json'))).toBe(true);
    expect(isInRepositoryResults(temp)).toBe(false);
    expect(isInRepositoryResults(`${REPOSITORY_RESULTS_DIR}-old/x.json`)).toBe(false);
    // Any folder can be named as the store (the rule's own tests).
    const store = join(temp, 'store');
    mkdirSync(store);
    expect(isInRepositoryResults(join(store, 'a.json'), store)).toBe(true);
    expect(isInRepositoryResults(join(temp, 'a.json'), store)).toBe(false);
  });

  it('is told for a whole batch from its results folder, and for a file outside one from the file', () => {
    const inStore = publishedStoreOf();
    const placed = (root: string, relativePath: string) => ({ relativePath, absolutePath: join(root, ...relativePath.split('/')) });
    const link = join(temp, 'batch-linked-results');
    symlinkSync(REPOSITORY_RESULTS_DIR, link);
    expect(inStore(placed(REPOSITORY_RESULTS_DIR, '2026-12-02/vllm/x.json'))).toBe(true);
    expect(inStore(placed(link, '2026-12-02/vllm/y.json'))).toBe(true);
    expect(inStore(placed(temp, '2026-12-02/vllm/x.json'))).toBe(false);
    expect(inStore(placed(`${REPOSITORY_RESULTS_DIR}-old`, 'x.json'))).toBe(false);
    // Not placed in a results folder, or a path that does not end in its relative path: the file's own path decides.
    expect(inStore({ relativePath: 'x.json', absolutePath: join(REPOSITORY_RESULTS_DIR, 'x.json'), placed: false })).toBe(true);
    expect(inStore({ relativePath: 'x.json', absolutePath: join(temp, 'x.json'), placed: false })).toBe(false);
    expect(inStore({ relativePath: 'elsewhere/x.json', absolutePath: join(REPOSITORY_RESULTS_DIR, 'x.json') })).toBe(true);
    expect(inStore({ relativePath: 'results/x.json', absolutePath: join(temp, 'x.json') })).toBe(false);
  });

  it('refuses a synthetic result bound for it and accepts the same file anywhere else', () => {
    const bound = checkResultText('results/x.json', text, null, { publishedStore: true });
    expect(bound.result).toBeNull();
    expect(rules(bound.problems)).toEqual(['synthetic']);
    expect(bound.problems[0]!.fix).toMatch(/temporary folder/);
    expect(checkResultText('x.json', text, null).problems).toEqual([]);
    expect(checkResultText('x.json', text, null, { publishedStore: false }).problems).toEqual([]);
  });
});
