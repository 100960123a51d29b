/**
 * What validate checks of a signature sidecar, offline, in this process (tests/store/verify.test.ts
 * signs and verifies for real through the CLI): its name, that it is a regular file within 64 KiB, a
 * Sigstore bundle holding a message signature over a sha256 digest, and that digest the result's.
 * The bundles here are SYNTHETIC: well-formed, their signature bytes made up (the signer is
 * verify's part).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSignatureSidecar, isSignatureFile, MAX_SIGNATURE_BYTES, orphanSignatureProblem, resultPathOfSignature, signaturePathOf } from '../../harness/store/signature-sidecar.ts';

const RESULT_SHA = 'ab'.repeat(32);

function bundle(over: Record<string, unknown> = {}, digestHex = RESULT_SHA): string {
  return JSON.stringify({
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: { publicKey: { hint: 'synthetic' }, tlogEntries: [], timestampVerificationData: { rfc3161Timestamps: [] } },
    messageSignature: { messageDigest: { algorithm: 'SHA2_256', digest: Buffer.from(digestHex, 'hex').toString('base64') }, signature: Buffer.from('synthetic').toString('base64') },
    ...over,
  });
}

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A result path in a fresh folder, its sidecar made by `make` (nothing: no sidecar). */
function withSidecar(make?: (sidecar: string) => void): { result: string; check: ReturnType<typeof checkSignatureSidecar> } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-sidecar-'));
  folders.push(dir);
  const result = join(dir, 'r.json');
  writeFileSync(result, '{}');
  make?.(signaturePathOf(result));
  return { result, check: checkSignatureSidecar('2026-01-10/r.json', result, RESULT_SHA) };
}

/**
 * Root reads any file whatever its mode (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): as root the check
 * runs in a child with those two dropped from its bounding set (setpriv, util-linux, as
 * tests/pipeline/collect.test.ts does), so mode 000 holds for it as for any user; otherwise here.
 */
function checkAsAnyUser(file: string, result: string, sha256: string): ReturnType<typeof checkSignatureSidecar> {
  if (process.getuid?.() !== 0) return checkSignatureSidecar(file, result, sha256);
  const script = join(dirname(result), 'check-sidecar.ts');
  writeFileSync(script, `import { checkSignatureSidecar } from ${JSON.stringify(fileURLToPath(new URL('../../harness/store/signature-sidecar.ts', import.meta.url)))};\nconst [file, result, sha] = process.argv.slice(2);\nprocess.stdout.write(JSON.stringify(checkSignatureSidecar(file!, result!, sha!)));\n`);
  const stdout = execFileSync('setpriv', ['--bounding-set=-dac_override,-dac_read_search', process.execPath, '--import', 'tsx', script, file, result, sha256], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(stdout) as ReturnType<typeof checkSignatureSidecar>;
}

const messages = (check: ReturnType<typeof checkSignatureSidecar>) => check.problems.map((p) => `${p.file}: ${p.message}`);

describe('signature sidecars', () => {
  it('are named after their result', () => {
    expect(signaturePathOf('a/r.json')).toBe('a/r.json.sigstore.json');
    expect(resultPathOfSignature('a/r.json.sigstore.json')).toBe('a/r.json');
    expect([isSignatureFile('r.json.sigstore.json'), isSignatureFile('r.sigstore.json'), isSignatureFile('r.json')]).toEqual([true, false, false]);
    expect(orphanSignatureProblem('x.json.sigstore.json')).toEqual({
      file: 'x.json.sigstore.json',
      path: '',
      message: '[signature] a signature without its result (no file at its path without .sigstore.json)',
      fix: 'a signature sidecar sits next to the result it signs, named <result>.json.sigstore.json; add the result or remove the signature',
    });
  });

  it('a result without one is unsigned, with no problem', () => {
    expect(withSidecar().check).toEqual({ present: false, problems: [] });
  });

  it('a bundle over the result\'s sha256 is accepted, and returned', () => {
    const { check } = withSidecar((sidecar) => writeFileSync(sidecar, bundle()));
    expect(check.problems).toEqual([]);
    expect(check.present && check.bundle?.content.$case).toBe('messageSignature');
  });

  it('refuses a link, a folder, a file over 64 KiB, and what is not a message signature over a sha256 digest, naming the sidecar', () => {
    const cases: Array<[string, (sidecar: string) => void, string]> = [
      ['link', (s) => symlinkSync('/etc/hostname', s), 'a symbolic link'],
      ['folder', (s) => mkdirSync(s), 'not a regular file'],
      ['too big', (s) => writeFileSync(s, ' '.repeat(MAX_SIGNATURE_BYTES + 1)), `the signature is ${MAX_SIGNATURE_BYTES + 1} bytes, over the ${MAX_SIGNATURE_BYTES} limit of a Sigstore bundle`],
      ['not JSON', (s) => writeFileSync(s, '{'), 'the signature is not JSON: '],
      ['not a bundle', (s) => writeFileSync(s, '{"a": 1}'), 'the signature is not a Sigstore bundle: '],
      ['DSSE', (s) => writeFileSync(s, bundle({ messageSignature: undefined, dsseEnvelope: { payload: 'e30=', payloadType: 'application/vnd.in-toto+json', signatures: [{ sig: 'c2ln', keyid: '' }] } })), "the signature bundle holds a dsseEnvelope, not a message signature over the result's bytes"],
      ['sha512', (s) => writeFileSync(s, bundle({ messageSignature: { messageDigest: { algorithm: 'SHA2_512', digest: Buffer.alloc(64).toString('base64') }, signature: 'c2ln' } })), 'the signature bundle does not sign a sha256 digest of the result'],
    ];
    for (const [name, make, message] of cases) {
      const { check } = withSidecar(make);
      expect(check.present, name).toBe(true);
      expect(messages(check), name).toEqual([expect.stringContaining(`2026-01-10/r.json.sigstore.json: [signature] ${message}`)]);
      // The problem is the sidecar's, as a whole file.
      expect(check.problems[0]!.path, name).toBe('');
      expect(check.problems[0]!.fix.length, name).toBeGreaterThan(20);
    }
  });

  it("cuts the parser's reason at 200 characters: a hostile bundle's own text does not fill the report", () => {
    // @sigstore/bundle quotes an unknown enum value whole ("Unrecognized enum value " and the value, 347 characters here).
    const algorithm = 'X'.repeat(300);
    const { check } = withSidecar((s) => writeFileSync(s, bundle({ messageSignature: { messageDigest: { algorithm, digest: 'q83v' }, signature: 'c2ln' } })));
    expect(messages(check)).toEqual([`2026-01-10/r.json.sigstore.json: [signature] the signature is not a Sigstore bundle: ${`Unrecognized enum value ${algorithm}`.slice(0, 200)}`]);
  });

  it('closes every sidecar it reads (validate reads one per signed result)', () => {
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let i = 0; i < 20; i++) {
      withSidecar((s) => writeFileSync(s, bundle()));
      withSidecar((s) => writeFileSync(s, ' '.repeat(MAX_SIGNATURE_BYTES + 1)));
    }
    expect(openFiles()).toBe(before);
  });

  it('a sidecar it may not read is a problem naming the permissions, not an exception', () => {
    const { result } = withSidecar((s) => {
      writeFileSync(s, bundle());
      chmodSync(s, 0o000);
    });
    const check = checkAsAnyUser('2026-01-10/r.json', result, RESULT_SHA);
    expect(messages(check)).toEqual([expect.stringMatching(/^2026-01-10\/r\.json\.sigstore\.json: \[signature\] cannot read: EACCES/)]);
    expect(check.problems[0]!.fix).toBe('check the file permissions');
  });

  it('reads a sidecar of exactly 64 KiB (then finds it is no JSON)', () => {
    const { check } = withSidecar((s) => writeFileSync(s, `{${' '.repeat(MAX_SIGNATURE_BYTES - 1)}`));
    expect(messages(check)).toEqual([expect.stringMatching(/\[signature\] the signature is not JSON: /)]);
  });

  it('refuses a signature over other bytes (an edited result, or a sidecar moved to another result)', () => {
    const { check } = withSidecar((s) => writeFileSync(s, bundle({}, 'cd'.repeat(32))));
    expect(check).toMatchObject({ present: true, bundle: null });
    expect(messages(check)).toEqual([`2026-01-10/r.json.sigstore.json: [signature] the signature is over other bytes (sha256 ${'cd'.repeat(6)}…), not this result's (${'ab'.repeat(6)}…)`]);
    expect(check.problems[0]!.fix).toMatch(/^a signed result is never edited/);
  });
});
