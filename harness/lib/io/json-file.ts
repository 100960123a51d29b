/**
 * A JSON file a command was handed (a plan, detect's output or state): read and checked against
 * its schema, or a usage error naming the flag, the file, each bad field and the fix.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { usageError } from '../errors.ts';

export interface JsonFileContext {
  /** The flag that named the file, e.g. "--plan". */
  readonly flag: string;
  /** What to do about a bad file, e.g. "give the plan.json `servebench plan --out DIR` wrote". */
  readonly fix: string;
  /** How a schema issue reads (default: zod's message). */
  readonly describe?: (issue: z.core.$ZodIssue) => string;
}

export function readJsonFile<S extends z.ZodType>(file: string, schema: S, context: JsonFileContext): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`${context.flag}: ${file} is not JSON (${(error as Error).message}); ${context.fix}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const describe = context.describe ?? ((issue: z.core.$ZodIssue) => issue.message);
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${describe(issue)}`);
    throw usageError(`${context.flag}: ${file}: ${issues.join('; ')}; ${context.fix}`);
  }
  return parsed.data;
}
