/**
 * `servebench run` never loses a measurement and never passes one that `validate` refuses: the
 * real CLI, the real sim engine (process launcher), the store's own checker on what came out.
 * A results folder that cannot be made (its path runs through a regular file: that stops root as
 * well as anyone, unlike a read-only mode) once lost the whole run with exit 70 and an empty
 * stdout; an engine that does not report its version once gave exit 0 with a result that
 * validate refuses.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import { EXIT } from '../../harness/lib/errors.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { CLI_PATH } from '../../harness/lib/process/spawn-cli.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';

const quick = ['--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--tokenizer', 'tests/fixtures/tokenizer-words', '--no-progress'];

describe('servebench run keeps what it measured', () => {
  it('a results folder that cannot be written: the result on stdout, exit 3, and it is a valid result', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-unwritable-'));
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const outcome = await runCli(['run', '--engine', 'sim', ...quick, '--results-dir', join(blocker, 'results')]);
    expect(outcome.code, outcome.stderr).toBe(EXIT.outputFailed);
    expect(outcome.stderr).toMatch(/cannot write .*a-file\/results\/.*\.json: .*; the result was printed to stdout instead/);
    const result = RunResultSchema.parse(JSON.parse(outcome.stdout));
    expect(result).toMatchObject({ kind: 'run', status: 'completed' });
    expect(result.points[0]!.metrics.completed).toBe(8);
    // Byte for byte the file it would have written: it passes validate where it belongs.
    const path = resultRelativePath(result, outcome.stdout);
    expect(checkResultText(path, outcome.stdout, path).problems).toEqual([]);
  });

  it('a result validate refuses (an engine that does not report its version): exit 4 naming the rule, the file kept', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    // engines/sim.yaml, but the version is read from a path the sim does not serve.
    const engine = join(dir, 'sim-unversioned.yaml');
    writeFileSync(engine, readFileSync('engines/sim.yaml', 'utf8').replace('name: sim\n', 'name: sim-unversioned\n').replace('version: { http: /version, field: version }', 'version: { http: /no-version-here, field: version }').replace('command: [npx, tsx, harness/cli.ts, sim]', `command: [node, --import, tsx, ${JSON.stringify(CLI_PATH)}, sim]`));
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', engine, ...quick, '--results-dir', results]);
    expect(outcome.code, outcome.stderr).toBe(EXIT.resultRefused);
    const files = resultFilesIn(results);
    expect(files).toHaveLength(1);
    const relativePath = relative(results, files[0]!);
    // The rule, as validate words it, on a line that names the file and the field.
    expect(outcome.stderr).toContain(`servebench: ${relativePath}: run.engine.version: [provenance] the engine version is missing (fix: `);
    expect(outcome.stderr).toMatch(/`servebench validate` refuses this result \(\d+ problems?, above\): it is kept in .*, but results\/ does not take it as it stands/);
    // What the run said is what validate says of the file.
    const text = readFileSync(files[0]!, 'utf8');
    expect(checkResultText(relativePath, text, relativePath).problems.map((p) => p.path)).toContain('run.engine.version');
    expect(RunResultSchema.parse(JSON.parse(text)).run!.engine.version).toBeNull();
  });
});
