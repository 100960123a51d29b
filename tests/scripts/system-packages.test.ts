/**
 * scripts/system-packages.sh, the first step of `npm test` (pretest) and of .ci/run: on a machine
 * missing Debian packages it installs them as root, or stops at once with the command to run.
 * apt-get, id and the present programs are fakes on a PATH of their own (nothing is installed
 * here): each fake is a shell script; apt-get records the arguments it was given.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = new URL('../../scripts/system-packages.sh', import.meta.url).pathname;

/** A PATH holding only the named programs, `id` answering uid, and apt-get logging to the returned file. */
function machine(present: readonly string[], uid: number, apt = true): { path: string; aptLog: string } {
  const bin = mkdtempSync(join(tmpdir(), 'sb-sys-'));
  const aptLog = join(bin, 'apt.log');
  const fake = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  for (const name of present) fake(name, 'exit 0');
  fake('id', `echo ${uid}`);
  if (apt) fake('apt-get', `echo "$@" >> ${aptLog}`);
  return { path: bin, aptLog };
}

function run(path: string, env: NodeJS.ProcessEnv = {}): { code: number | null; stderr: string } {
  const outcome = spawnSync('/bin/bash', [SCRIPT], { env: { PATH: path, ...env }, encoding: 'utf8' });
  return { code: outcome.status, stderr: outcome.stderr };
}

const ALL = ['chromium', 'cmake', 'g++', 'git', 'shellcheck', 'script', 'setpriv'];

describe('scripts/system-packages.sh', () => {
  it('does nothing when every program is there', () => {
    const { path, aptLog } = machine(ALL, 1000);
    expect(run(path)).toEqual({ code: 0, stderr: '' });
    expect(() => readFileSync(aptLog)).toThrow();
  });

  it('as root, installs exactly the missing packages with apt-get', () => {
    const { path, aptLog } = machine(['cmake', 'g++', 'git', 'script'], 0);
    const outcome = run(path);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toContain('installing chromium shellcheck util-linux (apt-get)');
    expect(readFileSync(aptLog, 'utf8').trim().split('\n')).toEqual(['update -qq', 'install -y -qq --no-install-recommends chromium shellcheck util-linux']);
  });

  it('without root or sudo, stops at once (exit 1) with the command to run, installing nothing', () => {
    const { path, aptLog } = machine(['chromium', 'git', 'script', 'setpriv'], 1000);
    const outcome = run(path);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe('servebench tests: missing Debian packages cmake g++ shellcheck; install them, then run npm test again:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends cmake g++ shellcheck\n');
    expect(() => readFileSync(aptLog)).toThrow();
  });

  it('takes CHROMIUM_PATH for the browser, and says what is missing where there is no apt-get', () => {
    const { path } = machine(['cmake', 'g++', 'git', 'shellcheck', 'script', 'setpriv'], 0, false);
    const browser = join(path, 'my-chromium');
    writeFileSync(browser, '#!/bin/sh\n', { mode: 0o755 });
    expect(run(path, { CHROMIUM_PATH: browser }).code).toBe(0);
    const outcome = run(path);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('servebench tests: missing chromium (Debian package names), and this machine has no apt-get');
  });
});
