/**
 * Who may sign an official result, and whether a sidecar's signature is theirs: Sigstore's keyless
 * signing, checked offline. A signature is accepted when its certificate chains to the trust root's
 * Fulcio CA, a transparency log entry and a signed certificate timestamp vouch for it (Sigstore's
 * own thresholds: one each), it signs exactly the result's bytes, and the certificate names this
 * repository's nightly workflow on main, issued on GitHub Actions' OIDC token. The repository
 * comes from configuration (--repo-url, SERVEBENCH_REPO_URL or the Actions run's repository),
 * never from the result, which anyone can write.
 *
 * The trust root is the public-good instance's trusted_root.json that @sigstore/tuf ships as its
 * TUF seed (so verify needs no network), or a trusted_root.json given with --trusted-root (a fresher
 * one, or a private Sigstore instance's; the tests make their own).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Bundle } from '@sigstore/bundle';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toSignedEntity, toTrustMaterial, Verifier, type TrustMaterial } from '@sigstore/verify';
import { usageError } from '../lib/errors.ts';

/** The workflow that signs official results, and the branch it must run on (a dispatch on another branch signs nothing official). */
export const SIGNING_WORKFLOW = '.github/workflows/nightly.yml';
export const SIGNING_REF = 'refs/heads/main';
/** The issuer of GitHub Actions' OIDC tokens, as Fulcio records it in the certificate. */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

export interface SignerIdentity {
  /** The certificate's subject alternative name: Fulcio's https://github.com/<owner>/<repo>/<workflow>@<ref> for a GitHub workflow. */
  readonly subjectAlternativeName: string;
  readonly issuer: string;
}

/** The one identity an official signature may have, for a repository URL such as https://github.com/owner/repo. */
export function nightlyIdentity(repositoryUrl: string): SignerIdentity {
  let url: URL;
  try {
    url = new URL(repositoryUrl);
  } catch {
    throw usageError(`--repo-url: "${repositoryUrl}" is not a URL; give the repository as https://github.com/OWNER/NAME`);
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || !/^\/[^/]+\/[^/]+$/.test(url.pathname.replace(/(\.git)?\/?$/, ''))) {
    throw usageError(`--repo-url: "${repositoryUrl}" is not a repository URL; give it as https://github.com/OWNER/NAME`);
  }
  const repository = `${url.origin}${url.pathname.replace(/(\.git)?\/?$/, '')}`;
  return { subjectAlternativeName: `${repository}/${SIGNING_WORKFLOW}@${SIGNING_REF}`, issuer: GITHUB_ACTIONS_ISSUER };
}

const PUBLIC_GOOD_MIRROR = 'https://tuf-repo-cdn.sigstore.dev';

/** The public-good instance's trusted root as the installed @sigstore/tuf seeds it, or the one in `path`. */
export function loadTrust(path: string | null): TrustMaterial {
  let json: unknown;
  if (path === null) {
    const seeds = createRequire(import.meta.url)('@sigstore/tuf/seeds.json') as Record<string, { targets: Record<string, string> }>;
    json = JSON.parse(Buffer.from(seeds[PUBLIC_GOOD_MIRROR]!.targets['trusted_root.json']!, 'base64').toString('utf8'));
  } else {
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw usageError(`--trusted-root: cannot read ${path} as JSON (${(error as Error).message.slice(0, 120)}); give a Sigstore trusted_root.json`);
    }
  }
  try {
    return toTrustMaterial(TrustedRoot.fromJSON(json));
  } catch (error) {
    throw usageError(`--trusted-root: ${path ?? 'the bundled trust root'} is not a Sigstore trusted root (${(error as Error).message.slice(0, 120)})`);
  }
}

export type SignatureVerdict =
  /** A valid signature by the expected identity. */
  | { readonly status: 'signed'; readonly signer: string }
  /** Not a valid signature of these bytes under the trust root: forged, edited, or from another instance. */
  | { readonly status: 'invalid'; readonly message: string }
  /** A valid signature, by someone else (another repository, workflow, branch or issuer). */
  | { readonly status: 'policy'; readonly message: string; readonly signer: string };

/** Checks a bundle over `bytes` (the result file exactly as stored). */
export function verifySignature(bundle: Bundle, bytes: Buffer, trust: TrustMaterial, expected: SignerIdentity): SignatureVerdict {
  let identity: { subjectAlternativeName?: string; extensions?: { issuer?: string } } | undefined;
  try {
    // No policy here: a valid signature by the wrong signer is a policy failure, told apart from a broken one.
    identity = new Verifier(trust).verify(toSignedEntity(bundle, bytes)).identity;
  } catch (error) {
    return { status: 'invalid', message: `the signature does not verify: ${(error as Error).message.slice(0, 200)}` };
  }
  const san = identity?.subjectAlternativeName ?? '(none)';
  const issuer = identity?.extensions?.issuer ?? '(none)';
  const signer = `${san} (issuer ${issuer})`;
  if (san !== expected.subjectAlternativeName) return { status: 'policy', message: `signed by ${san}, not by ${expected.subjectAlternativeName}`, signer };
  if (issuer !== expected.issuer) return { status: 'policy', message: `the signer's token was issued by ${issuer}, not by ${expected.issuer}`, signer };
  return { status: 'signed', signer };
}
