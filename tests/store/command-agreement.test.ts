/**
 * A result's fields and its recorded command line agree: a committed real CPU-lane result
 * relabelled (the page would say vllm while its Reproduce block runs llama.cpp; a community run
 * claiming official) is refused naming the field and the flag. Real results from results/, edited.
 */
import { describe, expect, it } from 'vitest';
import { RESULT_COMMAND_OPTIONS } from '../../harness/contract/command-options.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { readRecordedArgv, type RecordedCommand } from '../../harness/lib/cli/recorded-argv.ts';
import { checkCommandAgreement, optionValue } from '../../harness/store/command-agreement.ts';
import { committed, committedResults, problemsOf } from './claim-fixtures.ts';

/** A committed llama.cpp cpu-chat result (launcher process, source official, workload cpu-chat). */
const realResult = () => committed('llamacpp/dummy-llama-3.2-1b-instruct/cpu-2x-amd-epyc/cpu-chat');

/** `servebench run <flags>` as validate reads it back. */
function recorded(flags: readonly string[]): RecordedCommand {
  const read = readRecordedArgv(['servebench', 'run', ...flags], 'run', RESULT_COMMAND_OPTIONS.run);
  if (!read.ok) throw new Error(read.problem.message);
  return read.parsed;
}

/** What checkCommandAgreement adds for `result` run by `servebench run <flags>`. */
function direct(result: RunResult, flags: readonly string[]): Array<{ path: string; message: string }> {
  const added: Array<{ path: string; message: string }> = [];
  checkCommandAgreement(result, recorded(flags), RESULT_COMMAND_OPTIONS.run, (path, message) => added.push({ path, message }));
  return added;
}

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

  const KEEP_TOGETHER = 'keep the fields and the command line servebench recorded together (a result is not edited)';
  const ranOther = (says: string, flag: string, ran: string) => `[command-agrees] the result says "${says}" but its command line ran ${flag} "${ran}": its Reproduce block would run something other than what it shows`;

  it.each([
    ['--engine', (r: RunResult) => (r.run!.engine.name = 'vllm'), { path: 'run.engine.name', message: ranOther('vllm', '--engine', 'llamacpp'), fix: KEEP_TOGETHER }],
    ['--launcher', (r: RunResult) => (r.run!.engine.launcher = 'docker'), { path: 'run.engine.launcher', message: ranOther('docker', '--launcher', 'process'), fix: KEEP_TOGETHER }],
    ['--source', (r: RunResult) => (r.source = 'community'), { path: 'source', message: ranOther('community', '--source', 'official'), fix: KEEP_TOGETHER }],
    ['--workload', (r: RunResult) => (r.workload.name = 'cpu-rag'), { path: 'workload.name', message: ranOther('cpu-rag', '--workload', 'cpu-chat'), fix: KEEP_TOGETHER }],
    ['no --engine at all', (r: RunResult) => r.harness.command.splice(r.harness.command.indexOf('--engine'), 2), { path: 'harness.command', message: '[command-agrees] the command line names no --engine; the result says "llamacpp"', fix: 'keep the command line servebench recorded' }],
  ])('the problem names the field, both values and the flag: %s', (_flag, edit, problem) => {
    const result = realResult();
    edit(result);
    expect(problemsOf(result).filter((p) => p.message.startsWith('[command-agrees]'))).toEqual([{ file: 'f.json', ...problem }]);
  });

  it.each(['workloads/cpu-rag.yaml', './cpu-rag.yaml', 'specs/cpu-rag'])('a --workload given as a path to a spec file (%s) is not compared with workload.name', (path) => {
    const result = realResult();
    result.harness.command[result.harness.command.indexOf('--workload') + 1] = path;
    expect(agreementProblems(result)).toEqual([]);
  });

  it('a result without a source field is a community one', () => {
    const result = realResult();
    delete (result as { source?: unknown }).source;
    expect(direct(result, ['--engine', 'llamacpp', '--launcher', 'process'])).toEqual([]);
    expect(direct(result, ['--engine', 'llamacpp', '--launcher', 'process', '--source', 'official'])).toEqual([{ path: 'source', message: ranOther('community', '--source', 'official') }]);
  });

  it('a load result (no run block) has no engine, launcher or source to compare', () => {
    const result = realResult();
    delete (result as { run?: unknown }).run;
    expect(direct(result, ['--engine', 'vllm', '--source', 'official'])).toEqual([]);
  });

  it("an option's value: the last given, else the table's default, else null (no default, or no such option)", () => {
    const command = recorded(['--engine', 'vllm', '--engine', 'sglang']);
    expect(optionValue(command, RESULT_COMMAND_OPTIONS.run, 'engine')).toBe('sglang');
    expect(optionValue(command, RESULT_COMMAND_OPTIONS.run, 'launcher')).toBe('process');
    expect(optionValue(command, RESULT_COMMAND_OPTIONS.run, 'model')).toBeNull();
    expect(optionValue(command, RESULT_COMMAND_OPTIONS.run, 'no-such-option')).toBeNull();
  });

  it('a repeated flag counts by its last value, as the parser takes it', () => {
    const result = realResult();
    result.harness.command.push('--engine', 'vllm');
    expect(agreementProblems(result)).toEqual(['run.engine.name']);
  });
});
