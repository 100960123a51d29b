/**
 * Everything that makes one result file acceptable in results/: it parses, it is the schema
 * version this harness knows, it passes the schema, its numbers agree with each other, it carries
 * the provenance a leaderboard needs, and its path is the one its content dictates. Each problem
 * names the file, the JSON path and the fix. Hostile input (huge, deeply nested, wrong types,
 * markup in names) ends as problems, never as an exception.
 */
import { createHash } from 'node:crypto';
import { resultRelativePath } from '../contract/result-path.ts';
import { RunResultSchema, SCHEMA_VERSION, type RunResult } from '../contract/result.ts';
import { findCredentials } from '../contract/credentials.ts';
import { checkColumnFit, type CheckedColumns } from './column-fit.ts';
import { checkPlausibility } from './plausibility.ts';
import { checkEngineName } from './engine-names.ts';
import { checkRoofline } from './roofline.ts';
import { checkWorkloadClaims } from './workload-claims.ts';
import { fileSizeProblem, limitRule, LIMIT_RULES, MAX_NAME_CHARS, MAX_NESTING_DEPTH, MAX_RESULT_BYTES, tooDeepAt } from './store-limits.ts';
import { readRecordedArgv } from '../lib/cli/recorded-argv.ts';
import { checkCommandAgreement } from './command-agreement.ts';
import { checkRepeat } from './repeat-coherence.ts';
import { RESULT_COMMAND_OPTIONS } from '../contract/command-options.ts';
import { syntheticMark } from '../contract/synthetic.ts';

export interface ResultProblem {
  readonly file: string;
  /** JSON path inside the file, e.g. "points[2].metrics.ttft_ms.p99"; "" for the file itself. */
  readonly path: string;
  readonly message: string;
  readonly fix: string;
}

export interface CheckedResult {
  readonly result: RunResult | null;
  /** sha256 of the file's text, hex. */
  readonly sha256: string;
  readonly problems: ResultProblem[];
  /** A valid run's column values as the column check read them (the staging writes these). */
  readonly columns?: CheckedColumns;
}

/**
 * Names the leaderboard shows and groups by: ASCII letters, digits and a few separators. ASCII
 * because two names that look alike must be alike ("vllм" with a Cyrillic м would be a second
 * engine that reads as the first); never markup or control characters.
 */
const SAFE_NAME = /^[A-Za-z0-9 ._:/@+()\-,]*$/;
/** An engine is named as its engines/*.yaml file is: the compare page's engine@version needs no @ in it. */
const ENGINE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/**
 * Control and invisible format characters (bidi overrides among them) make a command display
 * differently from what is copied; tab, line feed and carriage return are honest (a pretty-printed
 * --extra-body) and display as what they are.
 */
const HIDDEN_CHARACTER = /(?![\t\n\r])[\p{Cc}\p{Cf}\u2028\u2029]/u;
const SAFE_PATH = /^[a-z0-9][a-z0-9./-]*\.json$/;

/** A zod issue's path as the problem lines name it: "points[2].metrics.ttft_ms.p99". */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}${text ? '.' : ''}${String(key)}`), '');
}

/** What a leaderboard row needs to be trusted and reproduced. */
function checkProvenance(result: RunResult, add: (path: string, message: string, fix: string) => void): void {
  const run = result.run;
  if (result.kind !== 'run' || !run) {
    add('kind', '[run-kind] results/ takes runs with provenance (kind "run"); this is a bare load result', 'produce it with `servebench run` (use --launcher external for a server you started yourself)');
    return;
  }
  if (result.status === 'completed') {
    if (!run.engine.version) add('run.engine.version', '[provenance] the engine version is missing', 'a completed run names the engine version it measured (the runner reads it from the server or --engine-version)');
    if (!result.harness.git_commit) add('harness.git_commit', '[provenance] the harness commit is missing', 'run servebench from a git checkout so the result records which harness measured it');
    if (result.points.length === 0) add('points', '[provenance] a completed run has no points', 'completed runs measured at least one load point');
  }
  // Every identifier that reaches a page (docs/validation.md lists them, and the free text the site escapes visibly instead).
  const names: Array<[string, string | null | undefined]> = [
    ['run.engine.name', run.engine.name],
    ['run.engine.version', run.engine.version],
    ['run.engine.image', run.engine.image],
    ['run.engine.image_digest', run.engine.image_digest],
    ['run.model.id', run.model.id],
    ['run.model.served_name', run.model.served_name],
    ['run.model.revision', run.model.revision],
    ['run.model.dtype', run.model.dtype],
    ['run.model.quantization', run.model.quantization],
    ['run.host.cpu_model', run.host.cpu_model],
    ['run.hardware.driver', run.hardware?.driver],
    ['run.hardware.cuda', run.hardware?.cuda],
    ['run.hardware.rocm', run.hardware?.rocm],
    ['target.server_version', result.target.server_version],
    ['workload.name', result.workload.name],
    ['workload.tokenizer.name', result.workload.tokenizer?.name],
    ['harness.version', result.harness.version],
    // Stryker disable next-line ArrayDeclaration: an entry made up for a missing GPU block has no name, and a name that is not there is not checked.
    ...(run.hardware?.gpus ?? []).map((gpu, i) => [`run.hardware.gpus[${i}].name`, gpu.name] as [string, string]),
  ];
  for (const [path, value] of names) {
    if (value && value.length > MAX_NAME_CHARS) {
      add(path, limitRule(LIMIT_RULES.nameLength, `is ${value.length} characters, over the ${MAX_NAME_CHARS} a name may have`), `shorten it to at most ${MAX_NAME_CHARS} characters: names are shown in table cells and repeated in every compiled row`);
    } else if (value && !SAFE_NAME.test(value)) {
      // The name fails SAFE_NAME, a class of single characters, so one of its characters does.
      const odd = [...value].find((c) => !SAFE_NAME.test(c))!;
      // Stryker disable next-line EqualityOperator: < 0x20 as <= 0x20 is alike, a space (0x20) being a character a name may have, so never the odd one.
      const named = ` (${odd.codePointAt(0)! > 0x7e || odd.codePointAt(0)! < 0x20 ? `U+${odd.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : `"${odd}"`})`;
      add(path, `[name-characters] "${value.slice(0, 60).replace(/[^\x20-\x7e]/g, '?')}" has a character a name may not have${named}`, `names use ASCII letters, digits, spaces and . _ : / @ + ( ) - , only (at most ${MAX_NAME_CHARS}): a look-alike letter from another script would make a second name that reads as the first`);
    }
  }
  if (!ENGINE_NAME.test(run.engine.name)) add('run.engine.name', `[engine-name] engine name "${run.engine.name.slice(0, 60).replace(/[^\x20-\x7e]/g, '?')}" is not an engine file name`, 'engines are named as in engines/*.yaml: lower-case letters, digits, . _ - (at most 64)');
  const commands: Array<[string, readonly string[]]> = [['harness.command', result.harness.command], ['run.engine.command', run.engine.command]];
  for (const [path, argv] of commands) {
    argv.forEach((arg, i) => {
      const hidden = arg.match(HIDDEN_CHARACTER)?.[0];
      if (hidden !== undefined) add(`${path}[${i}]`, `[hidden-character] holds the invisible character U+${hidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}: the command would display differently from what is copied`, 'record the command as typed; control and bidi characters do not belong in a command line');
    });
  }
  // The Reproduce block is made of this command: only a command line servebench itself takes.
  const recorded = readRecordedArgv(result.harness.command, 'run', RESULT_COMMAND_OPTIONS.run);
  if (!recorded.ok) add(`harness.command[${recorded.problem.index}]`, `[recorded-command] ${recorded.problem.message}`, recorded.problem.fix);
  else checkCommandAgreement(result, recorded.parsed, RESULT_COMMAND_OPTIONS.run, add);
  checkRepeat(result, recorded.ok ? recorded.parsed : null, RESULT_COMMAND_OPTIONS.run, add);
}

export interface CheckOptions {
  /**
   * The file is in (or bound for) the repository's own results/ (repository-results.ts): a
   * SYNTHETIC file (harness/contract/synthetic.ts) is refused there, and only there.
   */
  readonly publishedStore?: boolean;
}

/**
 * Checks one file's text. `relativePath` is its path under the results folder (forward
 * slashes); null skips the path check (a file checked on its own).
 */
export function checkResultText(file: string, text: string, relativePath: string | null, options: CheckOptions = {}): CheckedResult {
  const problems: ResultProblem[] = [];
  const add = (path: string, message: string, fix: string) => problems.push({ file, path, message, fix });
  const bytes = Buffer.byteLength(text);
  const sha256 = bytes > MAX_RESULT_BYTES ? '' : createHash('sha256').update(text).digest('hex');
  const rejected = (): CheckedResult => ({ result: null, sha256, problems });
  if (bytes > MAX_RESULT_BYTES) {
    problems.push(fileSizeProblem(file, bytes));
    return rejected();
  }
  if (relativePath !== null && !SAFE_PATH.test(relativePath)) {
    add('', `[result-path] the path "${relativePath.slice(0, 120)}" is not a result path`, 'result paths are lower-case letters, digits, dots, dashes and slashes, ending in .json, as `servebench run` writes them');
    return rejected();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // Stryker disable next-line MethodExpression: V8's JSON.parse messages quote at most 10 characters of the text and a position, far under 200; the cut guards another engine's.
    add('', `[json] not JSON: ${(error as Error).message.slice(0, 200)}`, 'a result file is the JSON `servebench run` wrote, unedited');
    return rejected();
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    add('', '[json] not a JSON object', 'a result file is the JSON object `servebench run` wrote, unedited');
    return rejected();
  }
  const version = (data as { schema_version?: unknown }).schema_version;
  if (version !== SCHEMA_VERSION) {
    add('schema_version', `[schema-version] schema_version ${String(JSON.stringify(version) ?? 'missing').slice(0, 40)} is not one this validator knows (${SCHEMA_VERSION})`, 'write it with this harness version, or update servebench');
    return rejected();
  }
  // Before anything that walks the document by recursion: free-form objects (workload.extra_body, run.engine.config) may nest without end.
  const tooDeep = tooDeepAt(data, MAX_NESTING_DEPTH);
  if (tooDeep !== null) {
    add(tooDeep.length > 80 ? `${tooDeep.slice(0, 80)}…` : tooDeep, limitRule(LIMIT_RULES.nestingDepth, `nested deeper than ${MAX_NESTING_DEPTH} levels`), `a result nests at most ${MAX_NESTING_DEPTH} levels, its free-form objects (--extra-body, engine settings) included: flatten them`);
    return rejected();
  }
  const parsed = RunResultSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 50)) add(jsonPath(issue.path), `[schema] ${issue.message}`, 'match docs/result.schema.json');
    return rejected();
  }
  const result = parsed.data;
  // Results are public: the harness redacts when it records, so a credential here was put in by hand or by an older harness.
  for (const finding of findCredentials(data)) {
    add(finding.path, `[credential] holds a credential (${finding.what}); results are public`, 'remove it or replace it with <redacted> (servebench redacts these when it records a run)');
  }
  if (options.publishedStore === true) {
    const mark = syntheticMark(result);
    if (mark !== null) add(mark, '[synthetic] a SYNTHETIC result (made by the test kit, measuring nothing) in the published results/', 'keep synthetic files in a temporary folder (tests and benchmarks compile them from there); results/ holds only runs servebench measured');
  }
  checkPlausibility(result, add);
  checkProvenance(result, add);
  // What the result claims to be: an engine servebench knows, physics its hardware allows, the scenario it records.
  checkEngineName(result, add);
  checkRoofline(result, add);
  checkWorkloadClaims(result, (data as { workload: { spec: unknown } }).workload.spec, add);
  // Stryker disable next-line LogicalOperator: the path only fills the file column, text that fits it either way.
  const columns = result.run ? checkColumnFit({ result, run: result.run, relativePath: relativePath ?? file, sha256 }, add) : undefined;
  if (relativePath !== null && result.run) {
    const expected = resultRelativePath(result, text, sha256);
    if (expected !== relativePath) add('', `[path-matches-content] the path does not match the content: expected ${expected}`, `move the file to results/${expected} (the name carries the content's sha256; edited files no longer match)`);
  }
  return problems.length === 0 ? { result, sha256, problems, ...(columns && { columns }) } : { result: null, sha256, problems };
}
