/**
 * The harness image (Dockerfile, .dockerignore), read without a daemon: linted with
 * dockerfile-utils (the Dockerfile validator of the VS Code Docker tooling), parsed with
 * dockerfile-ast, and held to what the Kubernetes Jobs and the CLI need of it: Node 24 from the
 * official Debian image at the version the tests run on, multi-stage, production dependencies and
 * tsx at the locked version, the llama.cpp build behind LLAMACPP, a non-root numeric USER, the
 * OCI labels, and a build context (Docker's own .dockerignore semantics, @balena/dockerignore)
 * that carries the run path and no results, build output, dependencies or secrets.
 * The image itself is built by .github/workflows/image.yml (and by hand: docs/harness-image.md).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ignore from '@balena/dockerignore';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { HARNESS_UID, IMAGE_CACHE_DIR } from '../../harness/pipeline/plan/kubernetes.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DOCKERFILE = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(join(REPO, '.dockerignore'), 'utf8');

/** Every rule the linter has, as an error. */
const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

function lint(text: string): string[] {
  return validate(text, STRICT).map((d) => `${d.range.start.line + 1}: ${d.message}`);
}

interface Stage {
  readonly from: string;
  readonly name: string | null;
  readonly instructions: Instruction[];
}

const parsed = DockerfileParser.parse(DOCKERFILE);
/** The instructions before the first FROM (global ARGs), and each stage's. */
const GLOBAL: Instruction[] = [];
const STAGES: Stage[] = [];
for (const instruction of parsed.getInstructions()) {
  const keyword = instruction.getKeyword();
  if (keyword === 'FROM') {
    const args = instruction.getArguments().map((a) => a.getValue());
    const as = args.findIndex((a) => a.toUpperCase() === 'AS');
    STAGES.push({ from: args[0]!, name: as >= 0 ? args[as + 1]! : null, instructions: [] });
  } else if (STAGES.length === 0) GLOBAL.push(instruction);
  else STAGES.at(-1)!.instructions.push(instruction);
}
const FINAL = STAGES.at(-1)!;
const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.getKeyword() === keyword);
const text = (i: Instruction) => i.getRawArgumentsContent() ?? '';
/** A global ARG's default. */
function globalArg(name: string): string | null {
  for (const i of GLOBAL) {
    const m = text(i).match(/^(\w+)(?:=(.*))?$/);
    if (i.getKeyword() === 'ARG' && m?.[1] === name) return m[2] ?? null;
  }
  return null;
}

describe('the harness image: Dockerfile', () => {
  it('passes the linter with every rule an error, and the linter is awake', () => {
    expect(lint(DOCKERFILE)).toEqual([]);
    // A broken Dockerfile: lower-case instruction, a relative WORKDIR, an unknown flag, two CMDs.
    const broken = 'FROM node:24 AS a\nrun true\nWORKDIR opt\nCOPY --frm=a x y\nCMD ["a"]\nCMD ["b"]\n';
    expect(lint(broken).length).toBeGreaterThanOrEqual(4);
  });

  it('is multi-stage: dependencies installed in their own stage, copied into the final one', () => {
    expect(STAGES.map((s) => s.name)).toEqual(['deps', 'harness']);
    const copies = of(FINAL, 'COPY') as Copy[];
    expect(copies.map((c) => [c.getFromFlag()?.getValue() ?? null, text(c)])).toEqual([
      ['deps', '/opt/servebench/node_modules ./node_modules'],
      // Then the checkout, as .dockerignore lets it in.
      [null, '. .'],
    ]);
    // The final stage never runs npm install: no registry access, no npm cache in the image.
    expect(of(FINAL, 'RUN').map(text).join('\n')).not.toMatch(/npm (ci|install)/);
  });

  it('starts from the official Node 24 Debian image, at the version the tests run on (glibc: its node runs in the engines\' images)', () => {
    for (const stage of STAGES) expect(stage.from).toBe('${NODE_IMAGE}');
    const image = globalArg('NODE_IMAGE')!;
    // An exact version (a digest may follow): no floating node:24 or :latest.
    const m = image.match(/^node:(\d+)\.(\d+)\.(\d+)-bookworm-slim(@sha256:[a-f0-9]{64})?$/);
    expect(m, image).not.toBeNull();
    expect(m![1]).toBe(readFileSync(join(REPO, '.nvmrc'), 'utf8').trim());
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    expect(`${m![1]}.${m![2]}.${m![3]}`).toBe(lock.packages['node_modules/node']!.version);
  });

  it('installs the production dependencies and tsx (a devDependency the CLI runs under) at the locked version, without install scripts', () => {
    const [install] = of(STAGES[0]!, 'RUN').map(text);
    expect(install).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(install).toContain(`TSX_VERSION="$(node -p "require('./package-lock.json').packages['node_modules/tsx'].version")"`);
    expect(install).toContain('npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund "tsx@${TSX_VERSION}"');
    expect(install).toContain('test "$(node -p "require(\'tsx/package.json\').version")" = "${TSX_VERSION}"');
    // What the run path loads: tsx (bin/servebench.mjs, the Jobs' --import tsx) is a devDependency today.
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies['tsx']).toBeDefined();
    expect(readFileSync(join(REPO, 'bin', 'servebench.mjs'), 'utf8')).toContain("from 'tsx/esm/api'");
    expect(of(STAGES[0]!, 'COPY').map(text)).toEqual(['package.json package-lock.json ./']);
  });

  it('builds llama.cpp only with --build-arg LLAMACPP=1: the toolchain, and the installed node-llama-cpp\'s server', () => {
    expect(globalArg('LLAMACPP')).toBe('0');
    expect(of(FINAL, 'ARG').map(text)).toContain('LLAMACPP');
    const runs = of(FINAL, 'RUN').map(text);
    const toolchain = runs.find((r) => r.includes('apt-get install'))!;
    expect(toolchain).toMatch(/^if \[ "\$\{LLAMACPP\}" = "1" \]; then/);
    expect(toolchain).toMatch(/apt-get install -y --no-install-recommends ca-certificates cmake g\+\+ git make/);
    expect(toolchain).toContain('rm -rf /var/lib/apt/lists/*');
    // Anything but 0 or 1 fails the build instead of silently building the small image.
    expect(toolchain).toContain('elif [ "${LLAMACPP}" != "0" ]; then echo "LLAMACPP is 0 or 1, not ${LLAMACPP}" >&2; exit 1; fi');
    const build = runs.find((r) => r.includes('llamacpp build'))!;
    expect(build).toMatch(/^if \[ "\$\{LLAMACPP\}" = "1" \]; then servebench llamacpp build --no-progress/);
    // Into the image's cache, where the Kubernetes build init container looks for it.
    expect(of(FINAL, 'ENV').map(text)).toContain(`SERVEBENCH_CACHE=${IMAGE_CACHE_DIR}`);
    // And the build runs as the user that reads it, after USER.
    expect(FINAL.instructions.findIndex((i) => text(i) === build)).toBeGreaterThan(FINAL.instructions.findIndex((i) => i.getKeyword() === 'USER'));
  });

  it('runs as the node image\'s non-root user, by number (what the Jobs\' securityContext says), and the CLI starts', () => {
    const users = of(FINAL, 'USER').map(text);
    expect(users).toEqual([`${HARNESS_UID}:${HARNESS_UID}`]);
    expect(HARNESS_UID).not.toBe(0);
    // The checkout the Jobs copy: /opt/servebench (kubernetes.ts copies /opt/servebench/.).
    expect(of(FINAL, 'WORKDIR').map(text)).toEqual(['/opt/servebench']);
    expect(readFileSync(join(REPO, 'harness', 'pipeline', 'plan', 'kubernetes.ts'), 'utf8')).toContain('cp -R /opt/servebench/. ${HARNESS_DIR}/');
    const last = of(FINAL, 'RUN').at(-1)!;
    expect(text(last)).toContain('servebench --help > /dev/null');
    expect(text(last)).toContain('npx --no-install servebench --help > /dev/null');
    expect(of(FINAL, 'CMD').map(text)).toEqual(['["servebench", "--help"]']);
  });

  it('carries the OCI labels (source, revision, version) from build arguments, and the revision in the checkout', () => {
    const labels = of(FINAL, 'LABEL').map(text).join(' ');
    for (const [key, arg] of [['source', 'SOURCE'], ['revision', 'REVISION'], ['version', 'VERSION']]) {
      expect(labels).toContain(`org.opencontainers.image.${key}="\${${arg}}"`);
      expect(of(FINAL, 'ARG').map(text).some((a) => a.startsWith(`${arg}=`))).toBe(true);
    }
    expect(of(FINAL, 'RUN').map(text).join('\n')).toContain(`printf '%s\\n' "\${REVISION}" > .image-revision`);
  });

  it('every apt-get install skips recommends and leaves no package lists behind', () => {
    for (const stage of STAGES) {
      for (const run of of(stage, 'RUN').map(text)) {
        if (!run.includes('apt-get install')) continue;
        expect(run).toContain('apt-get update');
        expect(run).toMatch(/apt-get install -y --no-install-recommends/);
        expect(run).toContain('rm -rf /var/lib/apt/lists/*');
      }
    }
  });
});

describe('the harness image: build context (.dockerignore)', () => {
  const ig = ignore().add(DOCKERIGNORE);
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter((f) => f !== '');

  it('keeps out results, build output, dependencies, tests, the site, git and secrets', () => {
    for (const path of [
      'results/2026-12-01/vllm/x.json',
      'build/data/MANIFEST.json',
      'dist/site/index.html',
      'node_modules/tsx/package.json',
      'test-artifacts/shot.png',
      '.git/config',
      '.env',
      'harness/.env',
      'harness/.env.local',
      'fleet/.npmrc',
      '.npmrc',
      'fleet/registry.pem',
      'harness/lib/id_rsa',
      'engines/signing.key',
      'tests/pipeline/image.test.ts',
      'site/src/pages/index.astro',
      'scripts/demo.ts',
      'bench/results/site.json',
      '.github/workflows/image.yml',
      'README.md',
      'Dockerfile',
      'harness/node_modules/x/index.js',
    ]) {
      expect(ig.ignores(path), path).toBe(true);
    }
  });

  it('lets in the run path: every tracked file of bin/, harness/, engines/, workloads/, fleet/ and the package files', () => {
    const runPath = tracked.filter((f) => /^(bin|harness|engines|workloads|fleet)\//.test(f) || ['package.json', 'package-lock.json', 'tsconfig.json'].includes(f));
    expect(runPath.length).toBeGreaterThan(100);
    expect(runPath.filter((f) => ig.ignores(f))).toEqual([]);
    for (const f of ['bin/servebench.mjs', 'harness/cli.ts', 'engines/vllm.yaml', 'workloads/chat.yaml', 'fleet/prices.yaml', 'fleet/sla-tiers.yaml', 'workloads/text/corpus.txt']) expect(runPath).toContain(f);
    // And nothing else that git tracks.
    expect(tracked.filter((f) => !ig.ignores(f) && !runPath.includes(f))).toEqual([]);
  });

  it('holds no test kit: the fakes and synthetic results stay out, and nothing let in imports tests/, scripts/ or bench/', () => {
    // The fakes, and the SYNTHETIC results generator the tests and the benchmarks share.
    const kit = tracked.filter((f) => f.startsWith('tests/kit/') || f.startsWith('bench/'));
    expect(kit).toEqual(expect.arrayContaining(['bench/lib/synthetic-results.ts', 'tests/kit/fakes/fake-server.ts', 'tests/kit/fakes/slurm/sbatch']));
    expect(kit.filter((f) => !ig.ignores(f))).toEqual([]);
    const shipped = tracked.filter((f) => !ig.ignores(f) && /\.(ts|mjs)$/.test(f));
    const reachesOut = shipped.filter((f) => /from '(\.\.\/)+(tests|scripts|bench)\/|import\('(\.\.\/)+(tests|scripts|bench)\//.test(readFileSync(join(REPO, f), 'utf8')));
    expect(reachesOut).toEqual([]);
    // The only fake left in the shipped tree would be named so: none is.
    expect(shipped.filter((f) => /(^|\/)fake-|synthetic-results/.test(f))).toEqual([]);
  });

  it('the developer scripts stand on the shipped tree, not on the test kit: nothing in scripts/ imports tests/', () => {
    // Test tooling that needs the kit (the nightly dry run, the synthetic-results writer) lives in tests/kit/ beside it.
    const scripts = tracked.filter((f) => /^scripts\/.*\.(ts|mjs)$/.test(f));
    expect(scripts.length).toBeGreaterThan(5);
    const reachesIntoTests = scripts.filter((f) => /from '(\.\.\/)+tests\/|import\('(\.\.\/)+tests\//.test(readFileSync(join(REPO, f), 'utf8')));
    expect(reachesIntoTests).toEqual([]);
  });
});
