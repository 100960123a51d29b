/** servebench's own version, from package.json, recorded in every result. */
import { readFileSync } from 'node:fs';

export const SERVEBENCH_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
