/**
 * What `servebench verify` concludes of each result file, offline: everything validate checks (the
 * same code: schema, consistency, plausibility, provenance, the spec hash, the path its content
 * dictates), the content hash its name carries (also for a file outside results/, e.g. one
 * downloaded), and its signature where it has one. Each file ends as
 * - valid: as above, and if signed, signed by this repository's nightly workflow on main;
 * - invalid: a check fails, or the signature is not a valid signature of these bytes;
 * - policy: a valid signature by someone else, a community file carrying one, or (with
 *   requireSignature) an official result without the nightly's signature;
 * - bad-input: unreadable, or not a result at all;
 * with its provenance: "official, signed", "official, unsigned" (official, made outside the
 * workflow: the CPU lane run by hand) or "community".
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { TrustMaterial } from '@sigstore/verify';
import type { ResultProblem } from './check-result.ts';
import type { BatchFile } from './parse-batch.ts';
import { readResultText } from './result-files.ts';
import { checkSignatureSidecar } from './signature-sidecar.ts';
import { parseFiles } from './store.ts';
import { verifySignature, type SignerIdentity } from './verify-signature.ts';

export type VerifyStatus = 'valid' | 'invalid' | 'policy' | 'bad-input';
export type Provenance = 'official, signed' | 'official, unsigned' | 'community';

export interface FileReport {
  readonly file: string;
  readonly status: VerifyStatus;
  /** null when the file is not a result (bad input). */
  readonly provenance: Provenance | null;
  /** Who signed it (certificate identity and issuer), when it carries a signature that verifies. */
  readonly signer?: string;
  readonly problems: ResultProblem[];
}

export interface VerifyOptions {
  /** The nightly's identity, from the configured repository; null: none configured (a signed file cannot be checked). */
  readonly expected: SignerIdentity | null;
  /** Loaded on the first signature met. */
  readonly trust: () => TrustMaterial;
  readonly requireSignature: boolean;
}

/** Exit status of a verify over these reports: the first that applies of 2, 1, 3, else 0. */
export function verifyExitCode(reports: readonly FileReport[]): number {
  const has = (status: VerifyStatus) => reports.some((r) => r.status === status);
  return has('bad-input') ? 2 : has('invalid') ? 1 : has('policy') ? 3 : 0;
}

/** A file read and recognised as a result (a JSON object with a schema_version), or why not. */
function readCandidate(target: BatchFile): { bytes: Buffer; source: unknown } | { problem: ResultProblem; status: VerifyStatus } {
  const problem = (message: string, fix: string): ResultProblem => ({ file: target.relativePath, path: '', message: `[bad-input] ${message}`, fix });
  let text: string;
  try {
    const read = readResultText(target.absolutePath);
    // Too large for a result: the validator says so, with its limit.
    if (!('text' in read)) return { bytes: Buffer.alloc(0), source: undefined };
    text = read.text;
  } catch (error) {
    return { status: 'bad-input', problem: problem(`cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'give a readable result file') };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('schema_version' in data)) {
    return { status: 'bad-input', problem: problem('not a result (a result is a JSON object with a schema_version)', 'give a result file `servebench run` wrote') };
  }
  return { bytes: Buffer.from(text, 'utf8'), source: (data as { source?: unknown }).source };
}

export async function verifyFiles(targets: readonly BatchFile[], options: VerifyOptions): Promise<FileReport[]> {
  const reports = new Map<string, FileReport>();
  const candidates: Array<{ target: BatchFile; bytes: Buffer; source: unknown }> = [];
  for (const target of targets) {
    const read = readCandidate(target);
    if ('problem' in read) reports.set(target.relativePath, { file: target.relativePath, status: read.status, provenance: null, problems: [read.problem] });
    else candidates.push({ target, ...read });
  }
  // The validator itself, as validate and compile run it (the signature sidecar's form included).
  const { verdicts } = await parseFiles(candidates.map((c) => c.target), null);
  const problemsOf = new Map(verdicts.map((v) => [v.relativePath, v.problems]));
  for (const { target, bytes, source } of candidates) {
    const file = target.relativePath;
    const problems = [...(problemsOf.get(file) ?? [])];
    const official = source === 'official';
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    // In results/ the validator compares the whole path with the content; elsewhere the name still carries the hash.
    if (target.placed === false && problems.length === 0 && !basename(target.absolutePath).endsWith(`-${sha256.slice(0, 12)}.json`)) {
      problems.push({ file, path: '', message: `[content-hash] the name does not carry the content's hash: it ends in -${sha256.slice(0, 12)}.json when unedited`, fix: 'a result is named by the sha256 of its bytes; an edited file no longer matches (get the file as published)' });
    }
    if (problems.length > 0) {
      reports.set(file, { file, status: 'invalid', provenance: official ? 'official, unsigned' : 'community', problems });
      continue;
    }
    const sidecar = checkSignatureSidecar(file, target.absolutePath, sha256);
    const add = (message: string, fix: string) => problems.push({ file, path: '', message: `[signature] ${message}`, fix });
    if (!sidecar.present || sidecar.bundle === null) {
      if (official && options.requireSignature) add('an official result without a signature (--require-signature)', 'official results made by the nightly workflow carry its signature (<file>.sigstore.json); results made outside it are "official, unsigned"');
      reports.set(file, { file, status: problems.length > 0 ? 'policy' : 'valid', provenance: official ? 'official, unsigned' : 'community', problems });
      continue;
    }
    if (options.expected === null) {
      add('signed, but no repository is configured: whose signature to accept is unknown', 'give --repo-url https://github.com/OWNER/NAME (or set SERVEBENCH_REPO_URL); it is never taken from the result');
      reports.set(file, { file, status: 'bad-input', provenance: official ? 'official, unsigned' : 'community', problems });
      continue;
    }
    const verdict = verifySignature(sidecar.bundle, bytes, options.trust(), options.expected);
    if (verdict.status === 'invalid') {
      add(verdict.message, 'a signed result is never edited; get the file and its signature as published, or remove the signature (it is then unsigned)');
      reports.set(file, { file, status: 'invalid', provenance: official ? 'official, unsigned' : 'community', problems });
      continue;
    }
    if (verdict.status === 'policy') add(`${verdict.message}: only the nightly workflow of the configured repository signs official results`, 'remove the signature; the result is then judged by its own content (community, or official unsigned)');
    else if (!official) add('signed by the nightly workflow, but the result says it is a community result; the nightly signs official results only', 'get the file as published');
    const signed = problems.length === 0 && official;
    reports.set(file, { file, status: problems.length > 0 ? 'policy' : 'valid', provenance: signed ? 'official, signed' : official ? 'official, unsigned' : 'community', signer: verdict.signer, problems });
  }
  return targets.map((t) => reports.get(t.relativePath)!);
}
