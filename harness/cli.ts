#!/usr/bin/env -S npx tsx
/**
 * servebench command-line entry. The only place that catches ServebenchError and decides the exit code.
 */
import { EXIT, ServebenchError } from './lib/errors.ts';
import { formatHelp, type Command } from './lib/cli/options.ts';

export const COMMANDS: Record<string, () => Promise<Command>> = {
  // run checks what it wrote with validate's own code; the CLI hands it over, as measure may not import the store
  // (nor the engines: the embedded engine's dummy shapes, whose accuracy task is skipped, come the same way).
  run: async () => {
    const [{ createRunCommand }, { checkResultText }, { formatProblemLine }, { SHAPES }] = await Promise.all([import('./measure/run/command.ts'), import('./store/check-result.ts'), import('./store/problem-output.ts'), import('./engines/embedded/dummy-model.ts')]);
    return createRunCommand((text, relativePath) => checkResultText(relativePath, text, relativePath).problems.map(formatProblemLine), Object.keys(SHAPES));
  },
  load: async () => (await import('./measure/load/command.ts')).loadCommand,
  // Each arm is a run: the embedded engine's dummy shapes come as they do for run.
  ab: async () => {
    const [{ createAbCommand }, { SHAPES }] = await Promise.all([import('./measure/ab/command.ts'), import('./engines/embedded/dummy-model.ts')]);
    return createAbCommand(Object.keys(SHAPES));
  },
  // Each comparison is an ab, whose arms are runs: the dummy shapes again.
  bisect: async () => {
    const [{ createBisectCommand }, { SHAPES }] = await Promise.all([import('./pipeline/bisect/command.ts'), import('./engines/embedded/dummy-model.ts')]);
    return createBisectCommand(Object.keys(SHAPES));
  },
  confirm: async () => (await import('./pipeline/confirm/command.ts')).createConfirmCommand(Object.keys((await import('./engines/embedded/dummy-model.ts')).SHAPES)),
  'file-confirmations': async () => (await import('./pipeline/confirm/file-command.ts')).fileConfirmationsCommand,
  // The embedded engine's dummy shapes are skipped by name; measure may not import the engines, so the CLI hands them over.
  accuracy: async () => {
    const [{ createAccuracyCommand }, { SHAPES }] = await Promise.all([import('./measure/accuracy/command.ts'), import('./engines/embedded/dummy-model.ts')]);
    return createAccuracyCommand(Object.keys(SHAPES));
  },
  sim: async () => (await import('./engines/sim/command.ts')).simCommand,
  embedded: async () => (await import('./engines/embedded/command.ts')).embeddedCommand,
  llamacpp: async () => (await import('./measure/builds/command.ts')).llamacppCommand,
  workloads: async () => (await import('./measure/workloads/command.ts')).workloadsCommand,
  engines: async () => (await import('./measure/engines/command.ts')).enginesCommand,
  validate: async () => (await import('./store/validate-command.ts')).validateCommand,
  'file-comparison': async () => (await import('./store/file-comparison-command.ts')).fileComparisonCommand,
  verify: async () => (await import('./store/verify-command.ts')).verifyCommand,
  sign: async () => (await import('./store/sign-command.ts')).signCommand,
  compile: async () => (await import('./store/compile-command.ts')).compileCommand,
  regress: async () => (await import('./store/regress-command.ts')).regressCommand,
  detect: async () => (await import('./pipeline/detect/command.ts')).detectCommand,
  plan: async () => (await import('./pipeline/plan/command.ts')).planCommand,
  alert: async () => (await import('./pipeline/alert/command.ts')).alertCommand,
  collect: async () => (await import('./pipeline/collect/command.ts')).collectCommand,
  summarize: async () => (await import('./pipeline/submission/command.ts')).summarizeCommand,
};

function mainHelp(): string {
  return [
    'servebench: measure OpenAI-compatible LLM inference servers the same way, client-side.',
    '',
    'Usage: servebench <command> [options]',
    '',
    'Commands:',
    '  run        Launch an engine, measure a workload, tear it down, write one result into results/',
    '  load       Drive a streaming load against an endpoint and write one result JSON',
    '  ab         Paired A/B of two releases on this host: A/A pilot, ABBA blocks of fresh launches, confirm pass, verdict with its 95% interval',
    '  bisect     Find the release that changed performance: paired A/B of each midpoint against both ends, down to two adjacent releases',
    "  accuracy   Score a running server on GSM8K (lm-eval's gsm8k setting) with a 95% interval; skipped on dummy weights",
    '  sim        Start the simulated engine (an OpenAI-compatible server with a cost model)',
    '  embedded   Start the embedded CPU engine (llama.cpp) on a GGUF or dummy-weight model',
    "  llamacpp   Build upstream llama.cpp's server for the CPU from node-llama-cpp's bundled source; list builds",
    '  workloads  List, show and validate workload scenarios (workloads/*.yaml)',
    '  engines    List, show and validate engine definitions (engines/*.yaml)',
    '  validate   Check result files: schema, consistency, provenance, path, duplicates, immutability',
    '  file-comparison  File an A/B or a bisection (with its A/Bs) into results/comparisons/, checked, at the path its content dictates',
    '  verify     Check results offline: what validate checks, the content hash, and official results\' signatures',
    '  sign       Sign official results with the nightly workflow\'s identity (Sigstore keyless), a sidecar next to each',
    '  compile    Compile results/ with DuckDB into Parquet snapshots and the site data',
    '  regress    Find regressions of each engine\'s newest release vs its previous one',
    '  detect     Poll engine releases and image tags; report new versions once (state in fleet/detect-state.json)',
    '  plan       Expand the fleet file into one job per run: a GitHub matrix, Kubernetes Jobs or SLURM scripts',
    '  confirm    Confirm each regression of a regress report by a paired A/B on this host before alerting; bisect the confirmed ones',
    '  file-confirmations  File the A/Bs and bisections a confirm output names into results/comparisons/, checked',
    '  alert      One GitHub issue per engine release and regressed configuration: opened, updated each night, closed when fixed; optionally a webhook',
    '  collect    Gather the nightly jobs\' result files into results/ (validated, never overwriting); list planned jobs without one',
    '  summarize  Summarize what a pull request adds to results/ and how it compares (Markdown for the PR comment)',
    '',
    'Run `servebench <command> --help` for the options of a command.',
    'Exit status: 0 ok, 1 a threshold was exceeded (e.g. --max-failure-rate), 2 bad input, 3 the result could not be',
    'written (it went to stdout), 4 the result was written but `validate` refuses it (run: each rule is printed),',
    '70 internal error (a servebench bug: please report it, with --debug for the stack),',
    '75 busy (another compile is writing the same output folder: try again when it has finished),',
    '129 hung up (SIGHUP: the terminal or SSH session went away), 130 interrupted (SIGINT), 143 terminated (SIGTERM).',
    'On any of those three signals a run stops its engine and still writes its result.',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`servebench: unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')}\n`);
    return EXIT.usage;
  }
  const command = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(formatHelp(command.spec));
    return EXIT.ok;
  }
  return command.run(rest.filter((arg) => arg !== '--debug'));
}

const isEntry = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  const debug = process.argv.includes('--debug');
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (error instanceof ServebenchError) {
        process.stderr.write(`servebench: ${error.message}\n`);
        if (debug && error.stack) process.stderr.write(`${error.stack}\n`);
        process.exitCode = error.exitCode;
      } else {
        process.stderr.write(`servebench: internal error: ${error instanceof Error ? (debug ? error.stack : error.message) : String(error)}\n`);
        process.exitCode = EXIT.internalError;
      }
    },
  );
}
