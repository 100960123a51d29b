/**
 * `servebench sign` and `servebench verify` end to end, through the real CLI: official results
 * signed as the nightly workflow would sign them (GitHub Actions' OIDC token → Fulcio → Rekor, here
 * the stand-ins of sigstore-stand-ins.ts on 127.0.0.1), then verified offline against that
 * instance's trust root; and what validate and compile make of signature sidecars. The results are
 * SYNTHETIC (bench/lib/synthetic-results.ts); the signatures are real ECDSA P-256 signatures
 * under a certificate chain and log made here. Not exercised: the public Fulcio, Rekor and TUF.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns } from './fixture-results.ts';
import { query } from './duckdb-query.ts';
import { githubClaims, startSigstore, type SigstoreStandIns } from './sigstore-stand-ins.ts';
import { runCli, type CliOutcome } from '../cli/run-cli.ts';

const REPOSITORY = 'servebench/servebench';
const REPO_URL = `https://github.com/${REPOSITORY}`;
const NIGHTLY = githubClaims(REPOSITORY, 'nightly.yml', 'refs/heads/main');

const root = mkdtempSync(join(tmpdir(), 'servebench-verify-'));
const results = join(root, 'results');
let sigstore: SigstoreStandIns;
let elsewhere: SigstoreStandIns;
/** Under results/: two official runs (the first signed in the tests), one community run. */
let official: string[] = [];
let community = '';

interface Report {
  file: string;
  status: string;
  provenance: string | null;
  signer?: string;
  problems: Array<{ file: string; path: string; message: string }>;
}

function sign(claims: Record<string, string | number>, files: readonly string[], dir = results, instance = sigstore): Promise<CliOutcome> {
  return runCli(['sign', '--results', dir, '--fulcio-url', instance.fulcioUrl, '--rekor-url', instance.rekorUrl, ...files.map((f) => join(dir, f))], 60_000, instance.actionsEnv(claims));
}

async function verify(paths: readonly string[], extra: readonly string[] = [], dir = results, trustedRoot = sigstore.trustedRootPath): Promise<{ code: number; reports: Report[]; stderr: string }> {
  const outcome = await runCli(['verify', '--results', dir, '--repo-url', REPO_URL, '--trusted-root', trustedRoot, '--json', ...extra, ...paths], 60_000, { SERVEBENCH_REPO_URL: '', GITHUB_ACTIONS: '' });
  return { code: outcome.code, reports: outcome.stdout ? (JSON.parse(outcome.stdout) as { files: Report[] }).files : [], stderr: outcome.stderr };
}

/** A copy of the results folder to break. */
function copyOfResults(name: string): string {
  const dir = join(root, name, 'results');
  cpSync(results, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  const runs = fixtureRuns();
  official = [writeResult(results, syntheticResult(runs[0]!)), writeResult(results, syntheticResult(runs[3]!))];
  community = writeResult(results, syntheticResult({ ...runs[6]!, source: 'community' }));
  sigstore = await startSigstore(join(root, 'trusted_root.json'));
  elsewhere = await startSigstore(join(root, 'elsewhere_trusted_root.json'));
  const signed = await sign(NIGHTLY, [official[0]!]);
  expect([signed.code, signed.stdout.trim(), signed.stderr]).toEqual([0, `signed ${official[0]}`, expect.any(String)]);
}, 120_000);

afterAll(async () => {
  await sigstore?.close();
  await elsewhere?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('servebench sign', () => {
  it("signs with the job's OIDC token (audience sigstore) into a sidecar: a Sigstore bundle over the file's bytes", () => {
    expect(sigstore.audiences).toEqual(['sigstore']);
    const bundle = JSON.parse(readFileSync(join(results, `${official[0]}.sigstore.json`), 'utf8'));
    expect(bundle.mediaType).toMatch(/^application\/vnd\.dev\.sigstore\.bundle/);
    const digest = Buffer.from(bundle.messageSignature.messageDigest.digest, 'base64').toString('hex');
    expect(official[0]).toMatch(new RegExp(`-${digest.slice(0, 12)}\\.json$`));
    expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
  });

  it('refuses a community result, and leaves an already signed one as it is', async () => {
    const before = readFileSync(join(results, `${official[0]}.sigstore.json`), 'utf8');
    const outcome = await sign(NIGHTLY, [official[0]!, community]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout.trim()).toBe(`already signed ${official[0]}`);
    expect(outcome.stderr).toContain(`${community}: source: [sign-official-only] a community result: the nightly workflow signs the results it made (source: official) only`);
    expect(readFileSync(join(results, `${official[0]}.sigstore.json`), 'utf8')).toBe(before);
  }, 60_000);

  it('--base: signs the results added since a commit (as the nightly does after collect), and validate --base checks an added signature with its result', async () => {
    const checkout = join(root, 'checkout');
    const dir = join(checkout, 'results');
    mkdirSync(dirname(join(dir, official[1]!)), { recursive: true });
    copyFileSync(join(results, official[1]!), join(dir, official[1]!));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'an earlier night');
    // Tonight's collected result, not committed yet.
    mkdirSync(dirname(join(dir, official[0]!)), { recursive: true });
    copyFileSync(join(results, official[0]!), join(dir, official[0]!));
    const outcome = await runCli(['sign', '--results', dir, '--base', 'HEAD', '--fulcio-url', sigstore.fulcioUrl, '--rekor-url', sigstore.rekorUrl], 60_000, sigstore.actionsEnv(NIGHTLY));
    expect([outcome.code, outcome.stdout.trim()]).toEqual([0, `signed ${official[0]}`]);
    git('add', '.');
    git('commit', '-qm', 'tonight');
    // A signature added later for a committed result: validate --base checks it with that result.
    const sidecar = join(dir, `${official[1]}.sigstore.json`);
    copyFileSync(join(dir, `${official[0]}.sigstore.json`), sidecar);
    const wrong = await runCli(['validate', '--results', dir, '--base', 'HEAD']);
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining(`${official[1]}.sigstore.json: [signature] the signature is over other bytes`)]);
    rmSync(sidecar);
    const orphan = join(dir, 'gone.json.sigstore.json');
    copyFileSync(join(dir, `${official[0]}.sigstore.json`), orphan);
    const lone = await runCli(['validate', '--results', dir, '--base', 'HEAD']);
    expect([lone.code, lone.stderr]).toEqual([1, expect.stringContaining('gone.json.sigstore.json: [signature] a signature without its result')]);
  }, 120_000);

  it('without an identity token signs nothing and says why (exit 2)', async () => {
    const dir = copyOfResults('no-token');
    const outcome = await runCli(['sign', '--results', dir, '--fulcio-url', sigstore.fulcioUrl, '--rekor-url', sigstore.rekorUrl, join(dir, official[1]!)], 60_000, { ACTIONS_ID_TOKEN_REQUEST_URL: '', ACTIONS_ID_TOKEN_REQUEST_TOKEN: '', SIGSTORE_ID_TOKEN: '' });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('no signature could be made');
    expect(outcome.stderr).toContain('id-token: write');
  }, 60_000);
});

describe('servebench verify', () => {
  it('a result signed by the nightly workflow on main: 0, "official, signed"', async () => {
    const { code, reports } = await verify([join(results, official[0]!)]);
    expect(code).toBe(0);
    expect(reports).toEqual([{ file: official[0], status: 'valid', provenance: 'official, signed', signer: `${REPO_URL}/.github/workflows/nightly.yml@refs/heads/main (issuer https://token.actions.githubusercontent.com)`, problems: [] }]);
  }, 60_000);

  it('an official result without a signature: 0 "official, unsigned"; 3 with --require-signature', async () => {
    const plain = await verify([join(results, official[1]!)]);
    expect([plain.code, plain.reports[0]!.status, plain.reports[0]!.provenance]).toEqual([0, 'valid', 'official, unsigned']);
    const strict = await verify([join(results, official[1]!)], ['--require-signature']);
    expect([strict.code, strict.reports[0]!.status, strict.reports[0]!.provenance]).toEqual([3, 'policy', 'official, unsigned']);
    expect(strict.reports[0]!.problems[0]!.message).toContain('an official result without a signature');
  }, 60_000);

  it('a community result: 0 "community"', async () => {
    const { code, reports } = await verify([join(results, community)]);
    expect([code, reports[0]!.status, reports[0]!.provenance]).toEqual([0, 'valid', 'community']);
  }, 60_000);

  it('a folder: every result once, a sidecar standing for its result', async () => {
    const { code, reports } = await verify([results, join(results, `${official[0]}.sigstore.json`)]);
    expect(code).toBe(0);
    expect(reports.map((r) => [r.file, r.provenance]).sort()).toEqual([[official[0], 'official, signed'], [official[1], 'official, unsigned'], [community, 'community']].sort());
  }, 60_000);

  it('the signed bytes changed: 1, wherever the file is (in results/, or downloaded under its name)', async () => {
    const dir = copyOfResults('edited');
    const path = join(dir, official[0]!);
    // Same length, one character changed where no consistency check looks: only the hashes can tell.
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('"node": "v24.0.0"');
    writeFileSync(path, text.replace('"node": "v24.0.0"', '"node": "v24.0.9"'));
    const placed = await verify([path], [], dir);
    expect([placed.code, placed.reports[0]!.status]).toEqual([1, 'invalid']);
    expect(placed.reports[0]!.problems.map((p) => p.message)).toEqual([expect.stringContaining('the path does not match the content')]);
    const outside = join(root, 'downloaded');
    mkdirSync(outside, { recursive: true });
    const name = join(outside, official[0]!.split('/').pop()!);
    copyFileSync(path, name);
    copyFileSync(`${path}.sigstore.json`, `${name}.sigstore.json`);
    const loose = await verify([name], [], dir);
    expect([loose.code, loose.reports[0]!.status]).toEqual([1, 'invalid']);
    expect(loose.reports[0]!.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^\[signature\] the signature is over other bytes/)]);
    // Unsigned, the name alone still gives the edit away.
    rmSync(`${name}.sigstore.json`);
    const unsigned = await verify([name], [], dir);
    expect([unsigned.code, unsigned.reports[0]!.problems.map((p) => p.message)]).toEqual([1, [expect.stringMatching(/^\[content-hash\] the name does not carry the content's hash/)]]);
  }, 60_000);

  it("a workload spec that no longer hashes to its spec_sha256 (an easier workload under the scenario's hash): 1, naming the spec hash", async () => {
    const dir = copyOfResults('spec');
    const result = JSON.parse(readFileSync(join(dir, official[1]!), 'utf8'));
    result.workload.spec.output.tokens = 1;
    rmSync(join(dir, official[1]!));
    const moved = writeResult(dir, result);
    const { code, reports } = await verify([join(dir, moved)], [], dir);
    expect([code, reports[0]!.status]).toEqual([1, 'invalid']);
    expect(reports[0]!.problems.map((p) => p.path)).toContain('workload.spec_sha256');
  }, 60_000);

  it('a signature whose bytes do not verify (the digest matches, the signature was altered): 1', async () => {
    const dir = copyOfResults('forged');
    const sidecar = join(dir, `${official[0]}.sigstore.json`);
    const bundle = JSON.parse(readFileSync(sidecar, 'utf8'));
    const signature = Buffer.from(bundle.messageSignature.signature, 'base64');
    signature[signature.length - 1] ^= 1;
    bundle.messageSignature.signature = signature.toString('base64');
    writeFileSync(sidecar, JSON.stringify(bundle));
    const { code, reports } = await verify([join(dir, official[0]!)], [], dir);
    expect([code, reports[0]!.status, reports[0]!.provenance]).toEqual([1, 'invalid', 'official, unsigned']);
    expect(reports[0]!.problems[0]!.message).toMatch(/^\[signature\] the signature does not verify: /);
  }, 60_000);

  it("a signature made under another Sigstore instance (a CA the trust root does not hold), or checked against the bundled public-good root: 1", async () => {
    const dir = copyOfResults('elsewhere');
    rmSync(join(dir, `${official[1]}.sigstore.json`), { force: true });
    expect((await sign(NIGHTLY, [official[1]!], dir, elsewhere)).code).toBe(0);
    const foreign = await verify([join(dir, official[1]!)], [], dir);
    expect([foreign.code, foreign.reports[0]!.status]).toEqual([1, 'invalid']);
    // Without --trusted-root: the public-good instance's root as @sigstore/tuf ships it, offline.
    const outcome = await runCli(['verify', '--results', results, '--repo-url', REPO_URL, '--json', join(results, official[0]!)], 60_000, { SERVEBENCH_REPO_URL: '' });
    expect([outcome.code, JSON.parse(outcome.stdout).files[0].status]).toEqual([1, 'invalid']);
  }, 120_000);

  it.each([
    ['another branch', githubClaims(REPOSITORY, 'nightly.yml', 'refs/heads/feature'), `${REPO_URL}/.github/workflows/nightly.yml@refs/heads/feature`],
    ['another workflow', githubClaims(REPOSITORY, 'ci.yml', 'refs/heads/main'), `${REPO_URL}/.github/workflows/ci.yml@refs/heads/main`],
    ['a fork', githubClaims('someone/servebench', 'nightly.yml', 'refs/heads/main'), 'https://github.com/someone/servebench/.github/workflows/nightly.yml@refs/heads/main'],
  ])('a valid signature from %s: 3 (policy), never "official, signed"', async (name, claims, identity) => {
    const dir = copyOfResults(`identity-${name.replace(/\W+/g, '-')}`);
    expect((await sign(claims, [official[1]!], dir)).code).toBe(0);
    const { code, reports } = await verify([join(dir, official[1]!)], [], dir);
    expect([code, reports[0]!.status, reports[0]!.provenance]).toEqual([3, 'policy', 'official, unsigned']);
    expect(reports[0]!.problems[0]!.message).toContain(`signed by ${identity}, not by ${REPO_URL}/.github/workflows/nightly.yml@refs/heads/main`);
  }, 60_000);

  it('the repository comes from configuration, never from the result: another --repo-url turns the same signature into a policy failure', async () => {
    const outcome = await runCli(['verify', '--results', results, '--repo-url', 'https://github.com/someone/servebench', '--trusted-root', sigstore.trustedRootPath, join(results, official[0]!)], 60_000);
    expect(outcome.code).toBe(3);
    expect(outcome.stdout.trim()).toBe(`${official[0]}: policy (official, unsigned)`);
  }, 60_000);

  it('an orphan signature (its result gone): 1, and validate and compile refuse it too', async () => {
    const dir = copyOfResults('orphan');
    rmSync(join(dir, official[0]!));
    const { code, reports } = await verify([dir], [], dir);
    expect(code).toBe(1);
    expect(reports.find((r) => r.file === `${official[0]}.sigstore.json`)).toMatchObject({ status: 'invalid', problems: [{ message: expect.stringContaining('a signature without its result') }] });
    const named = await verify([join(dir, `${official[0]}.sigstore.json`)], [], dir);
    expect([named.code, named.reports[0]!.status]).toEqual([1, 'invalid']);
    const validate = await runCli(['validate', '--results', dir]);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`${official[0]}.sigstore.json: [signature] a signature without its result`);
  }, 60_000);

  it('a malformed sidecar: refused by validate (1) and verify (1)', async () => {
    const dir = copyOfResults('malformed');
    writeFileSync(join(dir, `${official[1]}.sigstore.json`), '{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}');
    const validate = await runCli(['validate', '--results', dir]);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`${official[1]}.sigstore.json: [signature] the signature is not a Sigstore bundle`);
    const { code, reports } = await verify([join(dir, official[1]!)], [], dir);
    expect([code, reports[0]!.status]).toEqual([1, 'invalid']);
  }, 60_000);

  it('bad input: a missing path, or a file that is not a result: 2', async () => {
    expect((await runCli(['verify', join(root, 'nowhere.json')])).code).toBe(2);
    const stray = join(root, 'stray', 'notes.json');
    mkdirSync(dirname(stray), { recursive: true });
    writeFileSync(stray, '{"hello": "world"}');
    const { code, reports } = await verify([stray]);
    expect([code, reports[0]!.status, reports[0]!.provenance]).toEqual([2, 'bad-input', null]);
  }, 60_000);

  it('a signed result with no repository configured cannot be judged: 2, naming --repo-url', async () => {
    const outcome = await runCli(['verify', '--results', results, '--trusted-root', sigstore.trustedRootPath, join(results, official[0]!)], 60_000, { SERVEBENCH_REPO_URL: '', GITHUB_SERVER_URL: '', GITHUB_REPOSITORY: '', GIT_DIR: join(root, 'no-git') });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--repo-url');
  }, 60_000);
});

describe('validate, collect and compile with signatures', () => {
  it('collect takes a signature along with its result (placed next to it), and reports an orphan one as stray', async () => {
    const from = join(root, 'artifacts');
    const into = join(root, 'collected', 'results');
    mkdirSync(into, { recursive: true });
    for (const file of [official[0]!, `${official[0]}.sigstore.json`, official[1]!]) {
      mkdirSync(dirname(join(from, 'job-1', file)), { recursive: true });
      copyFileSync(join(results, file), join(from, 'job-1', file));
    }
    copyFileSync(join(results, `${official[0]}.sigstore.json`), join(from, 'job-1', 'lost.json.sigstore.json'));
    const outcome = await runCli(['collect', '--from', from, '--results', into, '--json']);
    expect(outcome.code).toBe(0);
    const report = JSON.parse(outcome.stdout);
    expect(report.collected.map((c: { path: string }) => c.path).sort()).toEqual([official[0], official[1]].sort());
    expect(report.stray.map((p: { file: string; message: string }) => [p.file, p.message])).toEqual([['job-1/lost.json.sigstore.json', expect.stringContaining('a signature without its result')]]);
    expect(readFileSync(join(into, `${official[0]}.sigstore.json`), 'utf8')).toBe(readFileSync(join(results, `${official[0]}.sigstore.json`), 'utf8'));
    const { code, reports } = await verify([into], [], into);
    expect([code, reports.map((r) => r.provenance).sort()]).toEqual([0, ['official, signed', 'official, unsigned']]);
  }, 60_000);


  it('validate accepts a signed folder; compile carries attestation: signed, unsigned, null for community', async () => {
    expect((await runCli(['validate', '--results', results])).code).toBe(0);
    const out = join(root, 'compiled');
    const compiled = await runCli(['compile', '--results', results, '--out', out], 120_000);
    expect(compiled.code).toBe(0);
    const rows = await query(`SELECT file, attestation FROM read_parquet('${out}/parquet/latest/runs/*.parquet') ORDER BY file`);
    expect(Object.fromEntries(rows.map((r) => [r.file, r.attestation]))).toEqual({ [official[0]!]: 'signed', [official[1]!]: 'unsigned', [community]: null });
  }, 180_000);
});
