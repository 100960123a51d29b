/**
 * Reading workload specs: YAML → zod → a Workload, or one error per problem naming the file, the
 * field and what is allowed (exit status 2).
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { usageError } from '../errors.ts';
import { WorkloadSchema, type Workload } from '../schema/workload.ts';

export const WORKLOADS_DIR = fileURLToPath(new URL('../../workloads/', import.meta.url));

export interface SpecProblem {
  readonly file: string;
  readonly field: string;
  readonly message: string;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}; remove or fix the spelling`;
  return issue.message;
}

/** Validates one spec file; returns the workload or every problem found. */
export function checkSpecFile(file: string): { workload: Workload | null; problems: SpecProblem[] } {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    return { workload: null, problems: [{ file, field: '(file)', message: `not readable YAML${where}: ${(error as Error).message.split('\n')[0]}` }] };
  }
  const parsed = WorkloadSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      workload: null,
      problems: parsed.error.issues.map((issue) => ({ file, field: issue.path.join('.') || '(top level)', message: describeIssue(issue) })),
    };
  }
  const expected = basename(file).replace(/\.ya?ml$/, '');
  if (parsed.data.name !== expected) {
    return { workload: null, problems: [{ file, field: 'name', message: `"${parsed.data.name}" must match the file name "${expected}"` }] };
  }
  return { workload: parsed.data, problems: [] };
}

export function formatProblems(problems: readonly SpecProblem[]): string {
  return problems.map((p) => `${p.file}: ${p.field}: ${p.message}`).join('\n');
}

/** A spec by name (from workloads/) or by path; a bad one is a usage error listing every problem. */
export function loadWorkload(nameOrPath: string, dir: string = WORKLOADS_DIR): Workload {
  const file = /[/\\]|\.ya?ml$/.test(nameOrPath) ? nameOrPath : join(dir, `${nameOrPath}.yaml`);
  if (!existsSync(file)) {
    throw usageError(`--workload: no workload "${nameOrPath}"; known: ${listWorkloadFiles(dir).map((f) => basename(f, '.yaml')).join(', ')}`);
  }
  const { workload, problems } = checkSpecFile(file);
  if (!workload) throw usageError(`invalid workload spec\n${formatProblems(problems)}`);
  return workload;
}

export function listWorkloadFiles(dir: string = WORKLOADS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}
