/**
 * What validate lets through of the strings a page shows or a shell runs, character by character:
 * every identifier field is checked at its own path; the name, engine-name and hidden-character
 * rules accept exactly their characters; problems name the character at fault; schema problems are
 * capped; the checked result carries its text's sha256. SYNTHETIC results (claim-fixtures.ts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkResultText, type ResultProblem } from '../../harness/store/check-result.ts';
import { MAX_RESULT_BYTES } from '../../harness/store/store-limits.ts';
import { synthetic } from './claim-fixtures.ts';

const textOf = (result: unknown) => `${JSON.stringify(result, null, 2)}\n`;
const problemsOf = (result: unknown): ResultProblem[] => checkResultText('f.json', textOf(result), null).problems;
const edited = (edit: (r: RunResult) => void): RunResult => {
  const result = synthetic();
  edit(result);
  return result;
};

/** Every identifier a page shows, with how to set it (docs/validation.md lists them). */
const NAME_FIELDS: Array<readonly [string, (r: RunResult, value: string) => void]> = [
  ['run.engine.version', (r, v) => (r.run!.engine.version = v)],
  ['run.engine.image', (r, v) => (r.run!.engine.image = v)],
  ['run.engine.image_digest', (r, v) => (r.run!.engine.image_digest = v)],
  ['run.model.id', (r, v) => (r.run!.model.id = v)],
  ['run.model.served_name', (r, v) => (r.run!.model.served_name = v)],
  ['run.model.revision', (r, v) => (r.run!.model.revision = v)],
  ['run.model.dtype', (r, v) => (r.run!.model.dtype = v)],
  ['run.model.quantization', (r, v) => (r.run!.model.quantization = v)],
  ['run.host.cpu_model', (r, v) => (r.run!.host.cpu_model = v)],
  ['run.hardware.driver', (r, v) => (r.run!.hardware!.driver = v)],
  ['run.hardware.cuda', (r, v) => (r.run!.hardware!.cuda = v)],
  ['run.hardware.rocm', (r, v) => (r.run!.hardware!.rocm = v)],
  ['target.server_version', (r, v) => (r.target.server_version = v)],
  ['workload.tokenizer.name', (r, v) => (r.workload.tokenizer = { name: v, sha256: null })],
  ['harness.version', (r, v) => (r.harness.version = v)],
  ['run.hardware.gpus[0].name', (r, v) => (r.run!.hardware!.gpus[0]!.name = v)],
];

describe('names that reach a page', () => {
  it.each(NAME_FIELDS)('%s: a look-alike letter is refused at its own path, naming the character', (path, set) => {
    const problems = problemsOf(edited((r) => set(r, 'llama-3.1-8b-м')));
    const named = problems.filter((p) => p.message.startsWith('[name-characters]'));
    expect(named.map((p) => p.path)).toEqual([path]);
    expect(named[0]!.message).toBe('[name-characters] "llama-3.1-8b-?" has a character a name may not have (U+043C)');
    expect(named[0]!.fix).toMatch(/^names use ASCII letters, digits, spaces and \. _ : \/ @ \+ \( \) - , only \(at most 200\)/);
  });

  it('workload.name is checked too (it is also the scenario, so its command line must agree)', () => {
    const problems = problemsOf(edited((r) => (r.workload.name = 'chat<')));
    expect(problems.filter((p) => p.message.startsWith('[name-characters]')).map((p) => p.path)).toEqual(['workload.name']);
  });

  it('accepts every character the rule allows, and refuses each other one, naming it quoted or by code point', () => {
    expect(problemsOf(edited((r) => (r.run!.model.served_name = 'AZaz09 ._:/@+()-,')))).toEqual([]);
    for (const [odd, shown] of [['<', '"<"'], ['"', '"""'], ['#', '"#"'], [';', '";"'], ['~', '"~"'], ['\u007f', 'U+007F'], ['\u0007', 'U+0007'], ['\u202e', 'U+202E'], ['é', 'U+00E9']] as const) {
      const problems = problemsOf(edited((r) => (r.run!.model.served_name = `model${odd}`)));
      expect(problems.map((p) => p.message), odd).toEqual([`[name-characters] "model${odd.codePointAt(0)! > 0x7e || odd.codePointAt(0)! < 0x20 ? '?' : odd}" has a character a name may not have (${shown})`]);
    }
  });

  it('shows at most 60 characters of a refused name', () => {
    const problems = problemsOf(edited((r) => (r.run!.model.served_name = `${'a'.repeat(70)}<`)));
    expect(problems[0]!.message).toBe(`[name-characters] "${'a'.repeat(60)}" has a character a name may not have ("<")`);
  });

  it('an over-long name is reported by its length only (its characters are not judged too)', () => {
    const problems = problemsOf(edited((r) => (r.run!.model.served_name = `${'a'.repeat(201)}<`)));
    expect(problems.map((p) => p.message)).toEqual(['[name-length] is 202 characters, over the 200 a name may have']);
  });
});

describe('the engine name', () => {
  it('is an engine file name: lower case, digits, . _ -, starting with a letter or digit, at most 64', () => {
    const rule = (name: string) => {
      const problems = problemsOf(edited((r) => (r.run!.engine.name = name)));
      return problems.filter((p) => p.message.startsWith('[engine-name]')).map((p) => p.message);
    };
    for (const ok of ['vllm', 'a', '0', 'tensorrt-llm', 'a.b_c-d', 'a'.repeat(64)]) expect(rule(ok), ok).toEqual([]);
    for (const bad of ['Vllm', '-vllm', '.vllm', '_vllm', 'vllm@1', 'vl lm', 'a'.repeat(65), '']) expect(rule(bad), bad).toHaveLength(1);
    expect(rule('VLLM<x>')).toEqual(['[engine-name] engine name "VLLM<x>" is not an engine file name']);
    expect(rule(`${'A'.repeat(70)}м`)).toEqual([`[engine-name] engine name "${'A'.repeat(60)}" is not an engine file name`]);
    expect(rule('vllм')).toEqual(['[engine-name] engine name "vll?" is not an engine file name']);
  });
});

describe('commands', () => {
  it('refuse control and invisible format characters in either command, naming the argument and the code point', () => {
    for (const hidden of ['\u0000', '\u001b', '\u007f', '\u200b', '\u202e', '\u2066', '\u2028', '\u2029', '\u00ad']) {
      const engine = problemsOf(edited((r) => r.run!.engine.command.push(`x${hidden}`)));
      expect(engine.map((p) => `${p.path}: ${p.message}`), JSON.stringify(hidden)).toEqual([
        `run.engine.command[3]: [hidden-character] holds the invisible character U+${hidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}: the command would display differently from what is copied`,
      ]);
    }
    const harness = problemsOf(edited((r) => (r.harness.command[3] = `vllm\u202e`)));
    expect(harness.filter((p) => p.message.startsWith('[hidden-character]')).map((p) => p.path)).toEqual(['harness.command[3]']);
  });

  it('keep tabs and line breaks (a pretty-printed --extra-body)', () => {
    expect(problemsOf(edited((r) => r.run!.engine.command.push('{\n\t"a": 1\r\n}')))).toEqual([]);
  });

  it('a recorded command servebench does not take is named at its first argument at fault', () => {
    const problems = problemsOf(edited((r) => r.harness.command.push('--no-such-flag')));
    expect(problems.map((p) => p.path)).toEqual([`harness.command[${synthetic().harness.command.length}]`]);
    expect(problems[0]!.message).toMatch(/^\[recorded-command\] .*--no-such-flag/);
  });
});

describe('the checked file', () => {
  it('carries the sha256 of its text, valid or not; a file over the size limit is not hashed', () => {
    const text = textOf(synthetic());
    const sha = createHash('sha256').update(text).digest('hex');
    expect(checkResultText('f.json', text, null)).toMatchObject({ sha256: sha, problems: [] });
    expect(checkResultText('f.json', text, null).result).not.toBeNull();
    const bad = text.replace('"completed"', '"nope"');
    expect(checkResultText('f.json', bad, null)).toMatchObject({ result: null, sha256: createHash('sha256').update(bad).digest('hex') });
    expect(checkResultText('f.json', 'x'.repeat(MAX_RESULT_BYTES + 1), null).sha256).toBe('');
    // A refused file returns no result even where the schema passed.
    expect(checkResultText('f.json', textOf(edited((r) => (r.run!.engine.version = null))), null).result).toBeNull();
  });

  it('reports at most 50 schema problems, each at its JSON path', () => {
    const result = synthetic() as unknown as { points: Array<{ metrics: Record<string, unknown> }> };
    const many = { ...result, points: Array.from({ length: 30 }, () => ({ ...result.points[0]!, metrics: { ...result.points[0]!.metrics, completed: 'x', failed: 'y' } })) };
    const problems = problemsOf(many);
    expect(problems).toHaveLength(50);
    expect(problems.slice(0, 2).map((p) => `${p.path}: ${p.message.slice(0, 9)}`)).toEqual(['points[0].metrics.completed: [schema] ', 'points[0].metrics.failed: [schema] ']);
  });

  it('names the path the content dictates when the file is elsewhere', () => {
    const text = textOf(synthetic());
    const problems = checkResultText('f.json', text, '2026-01-10/vllm/x.json').problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/^\[path-matches-content\] the path does not match the content: expected 2026-01-10\/vllm\/.*-[0-9a-f]{12}\.json$/);
    expect(problems[0]!.fix).toMatch(/^move the file to results\/2026-01-10\/vllm\//);
  });

  it('a result path is lower-case letters, digits, dots, dashes and slashes ending in .json; a long bad path is shown cut', () => {
    const text = textOf(synthetic());
    const pathRule = (path: string) => checkResultText('f.json', text, path).problems.filter((p) => p.message.startsWith('[result-path]')).map((p) => p.message);
    for (const bad of ['A.json', 'a.JSON', '.a.json', '-a.json', 'a.json.txt', 'a b.json', 'a_b.json', '']) expect(pathRule(bad), bad).toHaveLength(1);
    expect(pathRule('2026-01-10/vllm/a.b-c.json')).toEqual([]);
    expect(pathRule(`${'A'.repeat(130)}.json`)).toEqual([`[result-path] the path "${'A'.repeat(120)}" is not a result path`]);
  });
});
