/**
 * Writes docs/result.schema.json from the zod schema (the one definition). A test fails when the
 * committed file differs, so outside consumers never read a stale schema.
 * Usage: npm run schema:export
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resultJsonSchema } from '../harness/contract/result.ts';

export const JSON_SCHEMA_PATH = fileURLToPath(new URL('../docs/result.schema.json', import.meta.url));

export function renderJsonSchema(): string {
  return `${JSON.stringify(resultJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(JSON_SCHEMA_PATH, renderJsonSchema());
  process.stdout.write(`wrote ${JSON_SCHEMA_PATH}\n`);
}
