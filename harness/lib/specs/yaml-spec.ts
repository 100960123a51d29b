/**
 * Declarative specs (workloads/*.yaml, engines/*.yaml): YAML → zod → a typed spec, or one problem
 * per line naming the file, the field and what is allowed. Shared by every kind of spec.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { usageError } from '../errors.ts';

export interface SpecProblem {
  readonly file: string;
  readonly field: string;
  readonly message: string;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}; remove or fix the spelling`;
  return issue.message;
}

/** Validates one spec file; its `name` must be the file name. */
export function checkYamlSpec<T extends { name: string }>(file: string, schema: z.ZodType<T>): { spec: T | null; problems: SpecProblem[] } {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    return { spec: null, problems: [{ file, field: '(file)', message: `not readable YAML${where}: ${(error as Error).message.split('\n')[0]}` }] };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return {
      spec: null,
      problems: parsed.error.issues.map((issue) => ({ file, field: issue.path.join('.') || '(top level)', message: describeIssue(issue) })),
    };
  }
  const expected = basename(file).replace(/\.ya?ml$/, '');
  if (parsed.data.name !== expected) {
    return { spec: null, problems: [{ file, field: 'name', message: `"${parsed.data.name}" must match the file name "${expected}"` }] };
  }
  return { spec: parsed.data, problems: [] };
}

export function formatProblems(problems: readonly SpecProblem[]): string {
  return problems.map((p) => `${p.file}: ${p.field}: ${p.message}`).join('\n');
}

export function listSpecFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** A spec by name (from `dir`) or by path; an unknown or invalid one is a usage error. */
export function loadYamlSpec<T extends { name: string }>(nameOrPath: string, dir: string, schema: z.ZodType<T>, kind: string): T {
  const file = /[/\\]|\.ya?ml$/.test(nameOrPath) ? nameOrPath : join(dir, `${nameOrPath}.yaml`);
  if (!existsSync(file)) {
    throw usageError(`--${kind}: no ${kind} "${nameOrPath}"; known: ${listSpecFiles(dir).map((f) => basename(f).replace(/\.ya?ml$/, '')).join(', ')}`);
  }
  const { spec, problems } = checkYamlSpec(file, schema);
  if (!spec) throw usageError(`invalid ${kind} spec\n${formatProblems(problems)}`);
  return spec;
}
