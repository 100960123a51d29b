import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSpecFile, listWorkloadFiles } from '../../harness/measure/workloads/spec-file.ts';
import { runCli } from '../cli/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-specs-'));
function specFile(name: string, yaml: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

const GOOD = `name: good
description: A valid scenario.
api: completions
input: { dist: uniform, min: 10, max: 20 }
output: { dist: fixed, tokens: 5 }
requests: { count: 4 }
load: { rates: [1, inf], burstiness: 0.5, arrival: gamma, max_concurrency: 8 }
prefix_caching: irrelevant
`;

describe('workload specs', () => {
  it('every shipped scenario is valid, and the field-comparison set is there', () => {
    const files = listWorkloadFiles();
    for (const file of files) expect(checkSpecFile(file).problems).toEqual([]);
    const names = files.map((f) => f.split('/').pop()!.replace('.yaml', ''));
    expect(names).toEqual(expect.arrayContaining(['chat', 'reasoning', 'summarize', 'rag-shared-prefix', 'long-context', 'batch', 'multi-turn', 'smoke']));
  });

  it('fills defaults (api, warmup, sampling, seed) in a valid spec', () => {
    const { workload, problems } = checkSpecFile(specFile('good', GOOD));
    expect(problems).toEqual([]);
    expect(workload).toMatchObject({ requests: { count: 4, warmup: 2 }, sampling: { temperature: 0, ignore_eos: true }, seed: 0 });
  });

  it('names the file, the field and what is allowed, for every problem', () => {
    const file = specFile(
      'bad',
      `name: bad
description: x
input: { dist: gaussian, tokens: 5 }
output: { dist: uniform, min: 9, max: 3 }
requests: {}
load: { concurrency: [0] }
prefix_caching: maybe
extra: 1
`,
    );
    const lines = checkSpecFile(file).problems.map((p) => `${p.field}: ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^input\.dist: .*'fixed' \| 'uniform' \| 'range_ratio' \| 'normal' \| 'lognormal'/),
        'output.max: min must be ≤ max',
        'requests: give count or duration_s (or both)',
        expect.stringMatching(/^load\.concurrency\.0: Too small/),
        expect.stringMatching(/^prefix_caching: .*"expected"\|"irrelevant"/),
        '(top level): unknown field extra; remove or fix the spelling',
      ]),
    );
    expect(checkSpecFile(file).problems.every((p) => p.file === file)).toBe(true);
  });

  it('catches cross-field mistakes: a shared prefix longer than the input, multi-turn without chat, a name unlike the file', () => {
    const prefix = specFile('prefix', GOOD.replace('name: good', 'name: prefix').replace('{ dist: uniform, min: 10, max: 20 }', '{ dist: fixed, tokens: 10 }') + 'shared_prefix: { tokens: 10, groups: 2 }\n');
    expect(checkSpecFile(prefix).problems[0]).toMatchObject({ field: 'shared_prefix.tokens' });
    const turns = specFile('turns', GOOD.replace('name: good', 'name: turns') + 'multi_turn: { turns: 3 }\n');
    expect(checkSpecFile(turns).problems[0]).toMatchObject({ field: 'multi_turn', message: 'multi_turn needs api: chat' });
    expect(checkSpecFile(specFile('other', GOOD)).problems[0]).toMatchObject({ field: 'name', message: '"good" must match the file name "other"' });
  });

  it('takes an accuracy task with its defaults, and names each bad field of one', () => {
    const declared = checkSpecFile(specFile('task', GOOD.replace('name: good', 'name: task') + 'accuracy: { task: gsm8k }\n'));
    expect(declared.problems).toEqual([]);
    expect(declared.workload!.accuracy).toEqual({ task: 'gsm8k', problems: 250, seed: 0, shots: 5, concurrency: 4 });
    const bad = checkSpecFile(specFile('badtask', GOOD.replace('name: good', 'name: badtask') + 'accuracy: { task: mmlu, shots: 9, fewshot: 5 }\n'));
    expect(bad.problems.map((p) => p.field)).toEqual(expect.arrayContaining(['accuracy.task', 'accuracy.shots', 'accuracy']));
    const tooMany = checkSpecFile(specFile('toomany', GOOD.replace('name: good', 'name: toomany') + 'accuracy: { task: gsm8k, problems: 1315, shots: 5 }\n'));
    expect(tooMany.problems).toEqual([expect.objectContaining({ field: 'accuracy.problems', message: expect.stringContaining('problems + shots may be at most 1319') })]);
  });

  it('reports YAML syntax errors with the line', () => {
    const problems = checkSpecFile(specFile('broken', 'name: [unclosed\n')).problems;
    expect(problems[0]!.field).toBe('(file)');
    expect(problems[0]!.message).toMatch(/not readable YAML \(line \d+\)/);
  });

  it('CLI: validate exits 2 with one line per problem; list and show work; unknown names are exit 2', async () => {
    const bad = await runCli(['workloads', 'validate', join(dir, 'bad.yaml'), join(dir, 'good.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n').every((line) => line.startsWith(join(dir, 'bad.yaml')))).toBe(true);
    const all = await runCli(['workloads', 'validate']);
    expect(all.code).toBe(0);
    const list = await runCli(['workloads', 'list', '--json']);
    expect(JSON.parse(list.stdout).map((w: { name: string }) => w.name)).toContain('chat');
    const show = await runCli(['workloads', 'show', 'smoke']);
    expect(show.stdout).toMatch(/^name: smoke$/m);
    const unknown = await runCli(['workloads', 'show', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no workload "nope"; known: batch, chat/);
  });
});
