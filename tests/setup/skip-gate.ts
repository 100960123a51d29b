/**
 * Under CI=true a skipped test fails the run unless tests/skips.ts names it with the reason it can
 * never run on CI's machine. A vitest plugin rather than a reporter: a reporter given on the
 * command line (--reporter) replaces the configured ones, and the gate must hold whatever prints.
 *
 * It reads the finished run when vitest closes (after every reporter has printed), lists the
 * allowed skips with their reasons, and sets exit code 1 when a skip is not allowed or an entry of
 * the list names no test of a file that ran (a renamed test would otherwise keep its pass). A run
 * narrowed by test name (-t) is not CI's run and is not judged: vitest skips what the filter leaves out.
 */
import { relative } from 'node:path';
import type { Plugin } from 'vite';
import type { TestCase, TestModule, Vitest } from 'vitest/node';
import { ALLOWED_SKIPS, type AllowedSkip } from '../skips.ts';

export interface SkipVerdict {
  readonly allowed: ReadonlyArray<{ readonly test: string; readonly reason: string }>;
  readonly refused: readonly string[];
  readonly staleEntries: readonly AllowedSkip[];
}

interface SeenTest {
  readonly file: string;
  readonly name: string;
  readonly skipped: boolean;
}

function matches(entry: AllowedSkip, test: SeenTest): boolean {
  return entry.file === test.file && (test.name === entry.test || test.name.startsWith(`${entry.test} > `));
}

/** The gate's decision over the tests a run saw; pure, so the gate itself is tested without a CI run. */
export function judgeSkips(tests: readonly SeenTest[], allowList: readonly AllowedSkip[] = ALLOWED_SKIPS): SkipVerdict {
  const allowed: Array<{ test: string; reason: string }> = [];
  const refused: string[] = [];
  for (const test of tests) {
    if (!test.skipped) continue;
    const entry = allowList.find((candidate) => matches(candidate, test));
    if (entry === undefined) refused.push(`${test.file} > ${test.name}`);
    else allowed.push({ test: `${test.file} > ${test.name}`, reason: entry.reason });
  }
  const filesRun = new Set(tests.map((test) => test.file));
  const staleEntries = allowList.filter((entry) => filesRun.has(entry.file) && !tests.some((test) => matches(entry, test)));
  return { allowed, refused, staleEntries };
}

function seenTests(modules: readonly TestModule[], root: string): SeenTest[] {
  return modules.flatMap((module) =>
    [...module.children.allTests()].map((test: TestCase) => ({
      file: relative(root, module.moduleId),
      name: test.fullName,
      skipped: test.result().state === 'skipped',
    })),
  );
}

function report(verdict: SkipVerdict): string {
  const lines: string[] = [];
  if (verdict.allowed.length > 0) {
    lines.push(`Skipped on CI with a reason (tests/skips.ts): ${verdict.allowed.length}`);
    for (const { test, reason } of verdict.allowed) lines.push(`  ${test}\n    why: ${reason}`);
  }
  if (verdict.refused.length > 0) {
    lines.push(`CI=true: ${verdict.refused.length} test(s) skipped without a reason in tests/skips.ts. Make each run on CI's machine (.ci/run installs what a test needs), or name it there with the reason it never can:`);
    for (const test of verdict.refused) lines.push(`  ${test}`);
  }
  for (const entry of verdict.staleEntries) lines.push(`tests/skips.ts: "${entry.test}" names no test of ${entry.file}; correct or remove the entry`);
  return lines.length > 0 ? `\n${lines.join('\n')}\n` : '';
}

function judgeRun(vitest: Vitest, allowList: readonly AllowedSkip[]): void {
  if (vitest.config.testNamePattern !== undefined) return;
  const verdict = judgeSkips(seenTests(vitest.state.getTestModules(), vitest.config.root), allowList);
  process.stderr.write(report(verdict));
  if (verdict.refused.length > 0 || verdict.staleEntries.length > 0) process.exitCode = 1;
}

export interface SkipGateOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly allowList?: readonly AllowedSkip[];
}

export function skipGate({ env = process.env, allowList = ALLOWED_SKIPS }: SkipGateOptions = {}): Plugin {
  const judged = new WeakSet<Vitest>();
  return {
    name: 'servebench:skip-gate',
    configureVitest({ vitest }) {
      // Called once per project; one judgement per run.
      if (env['CI'] !== 'true' || judged.has(vitest)) return;
      judged.add(vitest);
      vitest.onClose(() => judgeRun(vitest, allowList));
    },
  };
}
