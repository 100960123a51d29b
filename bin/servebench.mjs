#!/usr/bin/env node
/**
 * `npx servebench <command> …` in a checkout (package.json "bin"): the TypeScript CLI
 * (harness/cli.ts) under tsx's loader, in this same process. tsx is resolved from this package's
 * own node_modules (next to this file, whatever the current folder is), and the CLI runs as its
 * entry: it decides the exit status and handles the signals. npx runs this file from a shell that
 * dies of the SIGTERM npm forwards to it, without passing it on; launcher-shell.ts notices that
 * shell's death and stops servebench as the signal would have.
 */
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { stopWhenLauncherShellDies } = await import(new URL('../harness/lib/process/launcher-shell.ts', import.meta.url).href);
stopWhenLauncherShellDies();
const cli = new URL('../harness/cli.ts', import.meta.url);
// harness/cli.ts runs main() when it is the process's entry (process.argv[1]); it is, through this file.
process.argv[1] = fileURLToPath(cli);
await import(cli.href);
