/**
 * A result's signature: a Sigstore bundle in a sidecar file next to it, `<result>.json.sigstore.json`.
 * Results are immutable and named by their content's hash, so a signature cannot live inside the
 * file it signs: the sidecar names its result by path, the bundle names its bytes by digest.
 *
 * This module is what validate and compile check of a sidecar, offline and without a trust root:
 * its size, that it is a Sigstore bundle holding a message signature, and that the digest it signs
 * is the sha256 of its result's bytes (an edited result, or a sidecar moved to another result, is
 * refused). Whether the certificate chains to Sigstore's root, the transparency log holds the entry
 * and the signer is this repository's nightly workflow is `servebench verify`'s part
 * (verify-signature.ts), which the nightly and the submission check run on every added file.
 */
import { closeSync, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { bundleFromJSON, type Bundle } from '@sigstore/bundle';
import { HashAlgorithm } from '@sigstore/protobuf-specs';
import type { ResultProblem } from './check-result.ts';

export const SIGNATURE_SUFFIX = '.sigstore.json';
/** A bundle with a Fulcio certificate chain and one Rekor entry is 5 to 10 KB; a sidecar far past that is no bundle. */
export const MAX_SIGNATURE_BYTES = 64 * 1024;

/** Whether a file name is a signature sidecar (the name of a result followed by the suffix). */
export function isSignatureFile(name: string): boolean {
  return name.endsWith(`.json${SIGNATURE_SUFFIX}`);
}

export function signaturePathOf(resultPath: string): string {
  return `${resultPath}${SIGNATURE_SUFFIX}`;
}

/** The result a sidecar signs (its path without the suffix). */
export function resultPathOfSignature(signaturePath: string): string {
  return signaturePath.slice(0, -SIGNATURE_SUFFIX.length);
}

/** A sidecar whose result is not there (`file` names the sidecar). */
export function orphanSignatureProblem(file: string): ResultProblem {
  return { file, path: '', message: '[signature] a signature without its result (no file at its path without .sigstore.json)', fix: 'a signature sidecar sits next to the result it signs, named <result>.json.sigstore.json; add the result or remove the signature' };
}

export type SidecarCheck =
  | { readonly present: false; readonly problems: ResultProblem[] }
  | { readonly present: true; readonly bundle: Bundle | null; readonly problems: ResultProblem[] };

const FIX_FORM = 'a signature sidecar is the Sigstore bundle `servebench sign` wrote next to its result, unedited; remove it if it is not one';

function read(path: string): { text: string } | { problem: string } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_SIGNATURE_BYTES) return { problem: `the signature is ${size} bytes, over the ${MAX_SIGNATURE_BYTES} limit of a Sigstore bundle` };
    const buffer = Buffer.alloc(size);
    let length = 0;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ArithmeticOperator: the first readSync reads a regular file of at most 64 KiB whole; the loop is for a short read, which a local file system does not give.
    for (let n = 1; n > 0 && length < size; length += n) n = readSync(fd, buffer, length, size - length, length);
    return { text: buffer.toString('utf8', 0, length) };
  } finally {
    closeSync(fd);
  }
}

/** The bundle of a sidecar's text, or why it is none (hostile input ends as a reason, never an exception). */
export function parseBundle(text: string): { bundle: Bundle } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Stryker disable next-line MethodExpression: V8's JSON.parse messages quote at most 10 characters of the text and a position, far under 200; the cut guards another engine's.
    return { problem: `the signature is not JSON: ${(error as Error).message.slice(0, 200)}` };
  }
  let bundle: Bundle;
  try {
    bundle = bundleFromJSON(json);
  } catch (error) {
    return { problem: `the signature is not a Sigstore bundle: ${(error as Error).message.slice(0, 200)}` };
  }
  if (bundle.content.$case !== 'messageSignature') return { problem: `the signature bundle holds a ${bundle.content.$case}, not a message signature over the result's bytes` };
  const digest = bundle.content.messageSignature.messageDigest;
  // Stryker disable next-line ConditionalExpression: bundleFromJSON refuses a message signature without its digest ("invalid bundle"); the type does not say so.
  if (digest === undefined || digest.algorithm !== HashAlgorithm.SHA2_256) return { problem: 'the signature bundle does not sign a sha256 digest of the result' };
  return { bundle };
}

/**
 * Checks the sidecar of a result, if it has one. `file` names the result in problems;
 * `sha256` is the hex sha256 of the result's bytes.
 */
export function checkSignatureSidecar(file: string, resultAbsolutePath: string, sha256: string): SidecarCheck {
  const path = signaturePathOf(resultAbsolutePath);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return { present: false, problems: [] };
  const problem = (message: string, fix = FIX_FORM): SidecarCheck => ({ present: true, bundle: null, problems: [{ file: signaturePathOf(file), path: '', message: `[signature] ${message}`, fix }] });
  if (!stat.isFile()) return problem(stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file', 'results/ holds only the files `servebench run` and `servebench sign` write, as regular files');
  let text: string;
  try {
    const got = read(path);
    if ('problem' in got) return problem(got.problem);
    text = got.text;
  } catch (error) {
    return problem(`cannot read: ${(error as Error).message}`, 'check the file permissions');
  }
  const parsed = parseBundle(text);
  if ('problem' in parsed) return problem(parsed.problem);
  // Stryker disable next-line ConditionalExpression: parseBundle returns message signatures only; the test narrows the type.
  const signed = parsed.bundle.content.$case === 'messageSignature' ? parsed.bundle.content.messageSignature.messageDigest!.digest : Buffer.alloc(0);
  if (Buffer.from(signed).toString('hex') !== sha256) {
    return problem(`the signature is over other bytes (sha256 ${Buffer.from(signed).toString('hex').slice(0, 12)}…), not this result's (${sha256.slice(0, 12)}…)`, 'a signed result is never edited: restore the bytes that were signed, or remove the signature (the result is then unsigned)');
  }
  return { present: true, bundle: parsed.bundle, problems: [] };
}
