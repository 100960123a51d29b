/**
 * The entry of the GPU check's one-file CLI (bundle.ts): harness/cli.ts run as bin/servebench.mjs
 * runs it, without tsx. The bundle gives each module its own source's URL for import.meta.url, so
 * cli.ts sees itself as the process's entry once argv[1] names it.
 */
import { fileURLToPath } from 'node:url';

process.argv[1] = fileURLToPath(new URL('../../harness/cli.ts', import.meta.url));
await import('../../harness/cli.ts');
