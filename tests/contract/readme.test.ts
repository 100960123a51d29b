/**
 * The README names only what exists: every `npx servebench …` line of its shell blocks is a
 * command with flags from its option table (parsed whole), every `npm run …` a script of
 * package.json, every relative link a file or folder of the checkout, and every path it quotes
 * (`results/…`, `docs/…`) one that exists (a path with a placeholder, `<date>`, is a pattern:
 * its folder before the placeholder must exist). Its account of what results/ holds is generated
 * from results/ (`npm run docs:readme`). And it stays a ten-minute read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../harness/cli.ts';
import { parseCommandLine } from '../../harness/lib/cli/options.ts';
import { dataToday, withDataToday } from '../../scripts/readme-data.ts';
import { shellWords } from '../kit/shell-words.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const SCRIPTS = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The command lines of the README's sh blocks, continuation lines joined, comments dropped. */
function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/(^|\s)#.*$/, '').trim();
      if (command !== '') lines.push(command);
    }
  }
  return lines;
}

/** Every `npx servebench COMMAND ARGS` in a line (a line may chain two with &&). */
function servebenchCalls(line: string): Array<{ command: string; args: string[] }> {
  return line.split(/&&|;/).flatMap((part) => {
    const words = shellWords(part.trim());
    const at = words[0] === 'npx' && words[1] === 'servebench' ? 2 : -1;
    return at < 0 ? [] : [{ command: words[at]!, args: words.slice(at + 1) }];
  });
}

describe('README', () => {
  it('is a ten-minute read: at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every servebench command line is a command whose flags its option table parses', async () => {
    const calls = shellLines(README).flatMap(servebenchCalls);
    expect(calls.length).toBeGreaterThan(5);
    for (const call of calls) {
      const where = `npx servebench ${call.command} ${call.args.join(' ')}`;
      expect(Object.keys(COMMANDS), where).toContain(call.command);
      const spec = (await COMMANDS[call.command]!()).spec;
      expect(() => parseCommandLine(spec, call.args), where).not.toThrow();
    }
  });

  it('says what results/ holds as results/ holds it (run `npm run docs:readme`)', () => {
    expect(README).toBe(withDataToday(README, dataToday()));
    expect(dataToday()).toMatch(/^`results\/` holds \d+ runs/);
  });

  it('every npm run names a script of package.json', () => {
    const runs = [...README.matchAll(/npm run (?:-s )?([\w:-]+)/g)].map((m) => m[1]!);
    expect(runs.length).toBeGreaterThan(3);
    for (const script of runs) expect(Object.keys(SCRIPTS), `npm run ${script}`).toContain(script);
  });

  it('every relative link and every quoted path of the checkout exists', () => {
    const links = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect(existsSync(join(REPO, link)), link).toBe(true);
    const TOP = /^(results|docs|scripts|tests|harness|fleet|site|workloads|engines|bench|\.github|\.ci)\//;
    const quoted = [...README.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((path) => TOP.test(path));
    expect(quoted.length).toBeGreaterThan(5);
    for (const path of quoted) {
      // A pattern (results/<date>/…) names its folder up to the first placeholder or wildcard.
      const fixed = path.split(/[<*]/)[0]!;
      expect(existsSync(join(REPO, fixed)), path).toBe(true);
    }
  });
});
