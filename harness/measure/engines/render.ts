/**
 * Rendering an engine's serve command from the common parameters: the same parameter set becomes
 * each engine's own flags. A parameter left unset is left out (the engine's default applies and
 * the rendered command, recorded in the result, shows exactly what was passed).
 */
import { usageError } from '../../lib/errors.ts';
import { SERVE_PARAMETERS, type Engine, type ServeParameter, type ServeParameters } from '../../contract/engine.ts';

/**
 * "{name}"; "{a*b}": the product of two numeric parameters (llama.cpp's context over its slots);
 * "{a/N}": a divided by N, rounded up (a KV budget in tokens as blocks of N tokens: a budget is
 * never rounded below what was asked for).
 */
const PLACEHOLDER = /\{([a-z_]+)(?:\*([a-z_]+)|\/(\d+))?\}/g;

function parameter(name: string, params: ServeParameters, engine: string, why: string): string | number | boolean {
  if (!(SERVE_PARAMETERS as readonly string[]).includes(name)) throw new Error(`engine ${engine}: unknown placeholder {${name}}`);
  const value = params[name as ServeParameter];
  if (value === undefined) throw usageError(`engine ${engine}: ${why} needs ${name}; give it (e.g. --${name.replace(/_/g, '-')})`);
  return value;
}

function substitute(piece: string, params: ServeParameters, engine: string): string {
  return piece.replace(PLACEHOLDER, (_, name: string, factor: string | undefined, divisor: string | undefined) => {
    if (divisor !== undefined) return String(Math.ceil(Number(parameter(name, params, engine, `its ${name} flag`)) / Number(divisor)));
    if (factor === undefined) return String(parameter(name, params, engine, 'its serve command'));
    const a = Number(parameter(name, params, engine, `its ${name} flag`));
    const b = Number(parameter(factor, params, engine, `its ${name} flag (the value is ${name} × ${factor})`));
    return String(a * b);
  });
}

/** Where the engine's settings file is, when it has one (the runner writes it there). */
export const CONFIG_FILE_PLACEHOLDER = '<engine-config.yaml>';

/**
 * The settings file of an engine that takes one (engines/*.yaml config_file), as an object: its
 * fixed settings with each common parameter it carries set at its dotted key; null without one.
 */
export function renderConfigFile(engine: Engine, params: ServeParameters): Record<string, unknown> | null {
  const spec = engine.config_file;
  if (!spec) return null;
  const file = structuredClone(spec.always) as Record<string, unknown>;
  for (const [name, item] of Object.entries(spec.items) as Array<[ServeParameter, NonNullable<typeof spec.items[ServeParameter]>]>) {
    const value = params[name];
    if (value === undefined) continue;
    let written: unknown = value;
    if (item.values) {
      if (!(String(value) in item.values)) throw usageError(`engine ${engine.name} has no ${name} ${String(value)}; it takes ${Object.keys(item.values).join(', ')}`);
      written = item.values[String(value)];
    }
    const keys = item.key.split('.');
    let node = file;
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[keys.at(-1)!] = written;
  }
  return file;
}

/**
 * The serve command; an engine's settings file is named by `configPath` (the placeholder until it
 * is written); `onGpus`: the run has GPUs, so the spec's gpu_args are appended.
 */
export function renderServeCommand(engine: Engine, params: ServeParameters, configPath: string = CONFIG_FILE_PLACEHOLDER, onGpus = false): string[] {
  for (const name of Object.keys(params) as ServeParameter[]) {
    if (params[name] === undefined) continue;
    const reason = engine.serve.unsupported[name];
    if (reason !== undefined) throw usageError(`engine ${engine.name} has no way to set ${name}: ${reason}`);
    if (engine.serve.held_always[name] !== undefined) continue;
    if (
      engine.serve.flags[name] === undefined &&
      engine.serve.joined?.items[name] === undefined &&
      engine.config_file?.items[name] === undefined &&
      !engine.serve.command.some((piece) => piece.includes(`{${name}}`))
    ) {
      throw usageError(`engine ${engine.name} has no flag for ${name}; leave it unset or add it to engines/${engine.name}.yaml`);
    }
  }
  const argv = engine.serve.command.map((piece) => substitute(piece, params, engine.name));
  if (onGpus) argv.push(...engine.serve.gpu_args.map((piece) => substitute(piece, params, engine.name)));
  for (const [name, flag] of Object.entries(engine.serve.flags) as Array<[ServeParameter, Engine['serve']['flags'][ServeParameter]]>) {
    const value = params[name];
    if (value === undefined || flag === undefined) continue;
    if (Array.isArray(flag) || 'unless' in flag) {
      if (typeof value === 'boolean') throw usageError(`engine ${engine.name}: ${name} takes a value, not true/false`);
      if (!Array.isArray(flag) && params[flag.unless] !== undefined) continue;
      argv.push(...(Array.isArray(flag) ? flag : flag.args).map((piece) => substitute(piece, params, engine.name)));
    } else if ('values' in flag) {
      const spelled = flag.values[String(value)];
      if (spelled === undefined) throw usageError(`engine ${engine.name} has no ${name} ${String(value)}; it takes ${Object.keys(flag.values).join(', ')}`);
      argv.push(...flag.args.map((piece) => substitute(piece, { ...params, [name]: spelled }, engine.name)));
    } else {
      if (typeof value !== 'boolean') throw usageError(`engine ${engine.name}: ${name} is on or off (true/false)`);
      argv.push(...(value ? flag.on : flag.off).map((piece) => substitute(piece, params, engine.name)));
    }
  }
  for (const piece of engine.metrics?.flag ?? []) if (!argv.includes(piece)) argv.push(piece);
  if (engine.config_file) {
    renderConfigFile(engine, params); // refuses a value the file cannot take, before anything launches
    argv.push(engine.config_file.flag, configPath);
  }
  const joined = engine.serve.joined;
  if (joined) {
    const items = (Object.entries(joined.items) as Array<[ServeParameter, string]>)
      .filter(([name]) => params[name] !== undefined)
      .map(([, template]) => substitute(template, params, engine.name));
    if (items.length > 0) argv.push(joined.flag, items.join(joined.separator));
  }
  refuseRepeatedFlags(engine, argv);
  return argv;
}

/**
 * A flag given twice is one parameter silently overriding another (LMDeploy's --cache-max-entry-count
 * from both gpu_memory_utilization and kv_budget_tokens): the engine would keep only the last.
 */
function refuseRepeatedFlags(engine: Engine, argv: readonly string[]): void {
  const seen = new Set<string>();
  for (const piece of argv) {
    if (!/^--?[A-Za-z]/.test(piece)) continue;
    if (seen.has(piece)) throw usageError(`engine ${engine.name}: ${piece} would be passed twice (two parameters set the same flag, e.g. --gpu-memory-utilization and --kv-budget-tokens); give one of them`);
    seen.add(piece);
  }
}

/** A command line as a shell would show it (for --dry-run and for the result's provenance). */
export { shellQuote } from '../../lib/shell/quote.ts';
