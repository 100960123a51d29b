/**
 * Engine specs for tests: variants of engines/sim.yaml with their own serve command or health
 * check. engines/sim.yaml has no flags for the sim's costs, and the runner's tests need engines
 * that crash, never become healthy, leak tokens or ignore SIGTERM; the simulated engine is behind
 * every one of them, so each still serves as the sim does.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_PATH } from '../../harness/lib/process/spawn-cli.ts';

/** `servebench sim` as a command line. */
export const SIM_COMMAND: readonly string[] = ['node', '--import', 'tsx', CLI_PATH, 'sim'];
/** The same, quoted word by word, for a bash -c script that wraps the sim. */
export const SIM_SHELL = SIM_COMMAND.map((a) => `'${a}'`).join(' ');

export interface SimEngineVariant {
  readonly name: string;
  readonly command: readonly string[];
  /**
   * flags: the runner appends --model-name MODEL --port PORT to the command (as engines/sim.yaml);
   * in-command: the command places {model} and {port} itself (a bash -c script around the sim).
   */
  readonly modelAndPort?: 'flags' | 'in-command';
  readonly healthPath?: string;
  readonly healthTimeoutS?: number;
  readonly description?: string;
  /** With flags: also --engine-version {engine_version}, as engines/sim.yaml (a variant that can play releases, for ab). */
  readonly versioned?: boolean;
}

/** Writes the variant's spec as `<dir>/<name>.yaml`, for `servebench run --engine <that file>`; returns its path. */
export function writeSimEngineVariant(dir: string, variant: SimEngineVariant): string {
  const file = join(dir, `${variant.name}.yaml`);
  const version = variant.versioned ? ', engine_version: [--engine-version, "{engine_version}"]' : '';
  const flags = (variant.modelAndPort ?? 'flags') === 'flags' ? `{ model: [--model-name, "{model}"], port: [--port, "{port}"]${version} }` : '{}';
  writeFileSync(
    file,
    [
      `name: ${variant.name}`,
      'display_name: test engine',
      `description: ${variant.description ?? 'a test variant of the sim engine'}`,
      'source: { repository: null, docs: ["docs/running.md#the-simulated-engine"] }',
      'image: null',
      'version: { http: /version, field: version }',
      `serve: { command: ${JSON.stringify(variant.command)}, flags: ${flags}, unsupported: { served_name: "sim", host: "the sim binds 127.0.0.1 by default" } }`,
      `health: { path: ${variant.healthPath ?? '/health'}, status: 200, timeout_s: ${variant.healthTimeoutS ?? 30} }`,
      'metrics: { path: /metrics }',
      'fatal_log_patterns: []',
      'quirks: { ignore_eos: body }',
    ].join('\n'),
  );
  return file;
}
