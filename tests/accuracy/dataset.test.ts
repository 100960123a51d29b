/** The repository's GSM8K copy is read only while its bytes are the published ones. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { gsm8kDatasetPath, loadGsm8k } from '../../harness/measure/accuracy/gsm8k-dataset.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-gsm8k-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const original = readFileSync(gsm8kDatasetPath());

function refusal(file: string): string {
  try {
    loadGsm8k(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ServebenchError);
    return (error as Error).message;
  }
  throw new Error(`${file} was not refused`);
}

describe('loadGsm8k', () => {
  it('reads the 1,319 problems of the published file, each with its reference', () => {
    const problems = loadGsm8k();
    expect(problems).toHaveLength(1319);
    expect(problems[0]).toMatchObject({ id: 0, reference: '18' });
    expect(problems[0]!.question).toMatch(/^Janet.s ducks lay 16 eggs/);
    // The dataset writes large answers with commas (#### 1,450,000): the reference drops them.
    expect(problems[611]!.reference).toBe('1450000');
    expect(problems.every((problem) => /^-?[0-9]+$/.test(problem.reference))).toBe(true);
  });

  it('refuses a copy with one byte changed, naming the file, both hashes and the fix', () => {
    const changed = Buffer.from(original);
    const at = changed.indexOf('#### 18');
    changed[at + 5] = '9'.charCodeAt(0);
    const file = join(dir, 'changed.jsonl');
    writeFileSync(file, changed);
    const message = refusal(file);
    expect(message).toContain(file);
    expect(message).toContain('3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14');
    expect(message).toContain('the same 1319 lines, some of them changed');
    expect(message).toContain('restore it (git checkout workloads/datasets/gsm8k/test.jsonl');
  });

  it('refuses a copy with a line missing, and a file that is not there', () => {
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, original.subarray(original.indexOf('\n') + 1));
    expect(refusal(file)).toContain('1318 lines where the published file has 1319');
    expect(refusal(join(dir, 'absent.jsonl'))).toContain('cannot read the GSM8K test set (ENOENT)');
  });
});
