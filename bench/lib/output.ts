/**
 * Where a bench writes its JSON and what it says about the machine: bench/results/ when run by
 * hand, the session folder when `npm run bench` runs it (SERVEBENCH_BENCH_OUT), so the gate
 * finds a session's files together. Every bench names its machine the same way, because the
 * gate compares a figure only with the same figure measured on the same kind of machine.
 */
import { cpus, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_OUT_ENV = 'SERVEBENCH_BENCH_OUT';

export function benchOutputDir(): string {
  return process.env[BENCH_OUT_ENV] || fileURLToPath(new URL('../results', import.meta.url));
}

/** `<bench>-20261203T210000Z[-suffix].json` in the output folder. */
export function benchOutputPath(bench: string, at: Date, suffix = ''): string {
  return join(benchOutputDir(), `${bench}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}${suffix}.json`);
}

export interface BenchMachine {
  readonly cpus: number;
  readonly cpu_model: string;
  readonly kernel: string;
  readonly node: string;
}

export function benchMachine(): BenchMachine {
  return { cpus: cpus().length, cpu_model: cpus()[0]?.model.trim() ?? 'unknown', kernel: release(), node: process.version };
}
