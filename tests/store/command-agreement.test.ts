/**
 * A result's fields and its recorded command line agree: a committed real CPU-lane result
 * relabelled (the page would say vllm while its Reproduce block runs llama.cpp; a community run
 * claiming official) is refused naming the field and the flag. Real results from results/, edited.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { committed, committedResults, problemsOf } from './claim-fixtures.ts';

/** A committed llama.cpp cpu-chat result (launcher process, source official, workload cpu-chat). */
const realResult = () => committed('llamacpp/dummy-llama-3.2-1b-instruct/cpu-2x-amd-epyc/cpu-chat');

function agreementProblems(result: RunResult): string[] {
  return problemsOf(result).filter((p) => p.message.startsWith('[command-agrees]')).map((p) => p.path);
}

describe('the recorded command agrees with the result', () => {
  it('every committed real result agrees', () => {
    for (const { path, result } of committedResults()) expect(agreementProblems(result), path).toEqual([]);
  });

  it.each([
    ['run.engine.name', (r: RunResult) => (r.run!.engine.name = 'vllm')],
    ['run.engine.launcher', (r: RunResult) => (r.run!.engine.launcher = 'docker')],
    ['source', (r: RunResult) => (r.source = 'community')],
    ['workload.name', (r: RunResult) => (r.workload.name = 'cpu-rag')],
  ])('a relabelled %s is refused', (path, edit) => {
    const result = realResult();
    edit(result);
    expect(agreementProblems(result)).toEqual([path]);
  });

  it("a missing --source is the table's default (community): a file saying official without it is refused", () => {
    const result = realResult();
    const i = result.harness.command.indexOf('--source');
    result.harness.command.splice(i, 2);
    expect(agreementProblems(result)).toEqual(['source']);
    result.source = 'community';
    expect(agreementProblems(result)).toEqual([]);
  });

  it('a repeated flag counts by its last value, as the parser takes it', () => {
    const result = realResult();
    result.harness.command.push('--engine', 'vllm');
    expect(agreementProblems(result)).toEqual(['run.engine.name']);
  });
});
