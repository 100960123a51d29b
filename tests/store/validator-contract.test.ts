/**
 * The validator's rules that live in harness/contract, where mutation testing found them unwatched
 * (docs/mutation-testing.md): what [lengths-exact] says when the server counted otherwise (the
 * length check's pairs, the completed requests), how a file without its own reason reads, where a
 * result without a run, a workload name or a usable model name lands (the path
 * [path-matches-content] compares against), and how much of a hostile schema_version a problem
 * quotes. SYNTHETIC results (claim-fixtures.ts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { effectiveLengths, judgeLengths, lengthMismatch } from '../../harness/contract/lengths-evidence.ts';
import { resultRelativePath, slug } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { synthetic } from './claim-fixtures.ts';

const clean: RunResult['workload']['length_check'] = { endpoint: '/tokenize', checked: 8, mismatched: 0, examples: [] };

describe('lengthMismatch: why the server says the prompts were not their built lengths', () => {
  it('is null when nothing disagreed', () => {
    expect(lengthMismatch(clean, [{ input_tokens_mismatched: 0 }, { input_tokens_mismatched: 0 }])).toBeNull();
  });

  it('counts the completed requests the server counted otherwise, over every point, in the singular for one', () => {
    expect(lengthMismatch(clean, [{ input_tokens_mismatched: 2 }, { input_tokens_mismatched: 3 }])).toBe('its usage.prompt_tokens differed from the built length on 5 completed requests');
    expect(lengthMismatch(clean, [{ input_tokens_mismatched: 0 }, { input_tokens_mismatched: 1 }])).toBe('its usage.prompt_tokens differed from the built length on 1 completed request');
  });

  it('shows the first three distinct built→counted pairs of the length check, and none when it kept no example', () => {
    const examples = [
      { expected: 512, server: 509 },
      { expected: 512, server: 509 },
      { expected: 256, server: 254 },
      { expected: 512, server: 508 },
      { expected: 128, server: 127 },
    ];
    expect(lengthMismatch({ ...clean, mismatched: 5, examples }, [])).toBe("the server's tokenizer counted 5 of 8 checked prompts otherwise (built→counted: 512→509, 256→254, 512→508)");
    expect(lengthMismatch({ ...clean, mismatched: 2, examples: [] }, [])).toBe("the server's tokenizer counted 2 of 8 checked prompts otherwise");
  });

  it('joins both reasons', () => {
    expect(lengthMismatch({ ...clean, mismatched: 1, examples: [{ expected: 64, server: 63 }] }, [{ input_tokens_mismatched: 4 }])).toBe(
      "the server's tokenizer counted 1 of 8 checked prompts otherwise (built→counted: 64→63); its usage.prompt_tokens differed from the built length on 4 completed requests",
    );
  });
});

describe('judgeLengths', () => {
  it('keeps the reason prompts were approximate when they were built so; the server’s counts only turn exact into approximate', () => {
    const disagreeing = { ...clean, mismatched: 1, examples: [] };
    expect(judgeLengths({ lengths: 'approximate', reason: 'no chat template' }, disagreeing, [])).toEqual({ lengths: 'approximate', reason: 'no chat template' });
    expect(judgeLengths({ lengths: 'exact', reason: null }, disagreeing, [])).toEqual({ lengths: 'approximate', reason: "the server's tokenizer counted 1 of 8 checked prompts otherwise" });
  });
});

describe('effectiveLengths', () => {
  it('keeps an approximate file approximate, with a reason of its own when it recorded none', () => {
    expect(effectiveLengths({ workload: { lengths: 'approximate', length_check: clean }, points: [] })).toEqual({
      lengths: 'approximate',
      reason: 'recorded as approximate (no tokenizer built the prompts, or it had no chat template)',
    });
    expect(effectiveLengths({ workload: { lengths: 'approximate', lengths_reason: 'no chat template', length_check: clean }, points: [] })).toEqual({ lengths: 'approximate', reason: 'no chat template' });
  });

  it('turns an exact file approximate by its own counts', () => {
    expect(effectiveLengths({ workload: { lengths: 'exact', length_check: clean }, points: [{ input_tokens_mismatched: 1 }] })).toEqual({
      lengths: 'approximate',
      reason: 'its usage.prompt_tokens differed from the built length on 1 completed request',
    });
  });
});

describe('resultRelativePath: where a result lands in results/', () => {
  const text = (result: RunResult) => `${JSON.stringify(result, null, 2)}\n`;

  it('a run: <day>/<engine>/<model>/<hardware>/<workload>-<sha256, 12 hex>.json', () => {
    const result = synthetic();
    expect(resultRelativePath(result, text(result), 'ab'.repeat(32))).toBe('2026-01-10/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-abababababab.json');
  });

  it('a bare endpoint measured from the command line: "endpoint" for engine and hardware, "command-line" for the workload', () => {
    const result = synthetic();
    delete (result as { run?: unknown }).run;
    result.workload.name = null;
    expect(resultRelativePath(result, text(result), 'cd'.repeat(32))).toBe(`2026-01-10/endpoint/${result.target.model.replace(/[^a-z0-9.]+/gi, '-').toLowerCase()}/endpoint/command-line-cdcdcdcdcdcd.json`);
  });

  it('a slug: lower case, one dash for each run of other characters, no dash or dot at either end, at most 80 characters', () => {
    expect(slug('Llama 3.1  8B__Instruct')).toBe('llama-3.1-8b-instruct');
    expect(slug('--.a b.--')).toBe('a-b');
    expect(slug('x'.repeat(100))).toBe('x'.repeat(80));
  });

  it('names the model by the last two parts of its id', () => {
    const result = synthetic();
    result.run!.model.id = 'hub/meta-llama/Llama-3.1-8B';
    expect(resultRelativePath(result, text(result), 'ef'.repeat(32)).split('/')[2]).toBe('meta-llama-llama-3.1-8b');
  });

  it('a CPU-only run: "cpu-<cpus>x-<cpu model>" for the hardware, with no GPU block or an empty one', () => {
    const result = synthetic();
    const hardwarePart = () => resultRelativePath(result, text(result), 'ef'.repeat(32)).split('/')[3];
    result.run!.hardware!.gpus = [];
    expect(hardwarePart()).toBe('cpu-64x-synthetic-cpu');
    result.run!.hardware = null;
    expect(hardwarePart()).toBe('cpu-64x-synthetic-cpu');
  });

  it("without a digest given, names the file by its text's own sha256", () => {
    const result = synthetic();
    const json = text(result);
    expect(resultRelativePath(result, json)).toBe(resultRelativePath(result, json, createHash('sha256').update(json).digest('hex')));
    expect(resultRelativePath(result, json)).toMatch(/\/chat-[0-9a-f]{12}\.json$/);
  });

  it('a name with nothing a path may hold becomes "unknown"', () => {
    const result = synthetic();
    result.run!.model.id = '@@/%%';
    expect(resultRelativePath(result, text(result), 'ef'.repeat(32)).split('/')[2]).toBe('unknown');
  });
});

describe('a hostile schema_version', () => {
  it('is quoted in at most 40 characters', () => {
    const result = { ...synthetic(), schema_version: 'x'.repeat(100) };
    const [problem] = checkResultText('f.json', JSON.stringify(result), null).problems;
    expect(problem!.message).toMatch(/^\[schema-version\] schema_version "x{39} is not one this validator knows/);
  });
});
