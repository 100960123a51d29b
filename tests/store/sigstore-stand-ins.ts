/**
 * Stand-ins for what signing needs and cannot be reached from here: GitHub Actions' OIDC token
 * endpoint, Fulcio and Rekor, each a real HTTP server on 127.0.0.1, and the trusted_root.json that
 * vouches for them. Fulcio and Rekor are Sigstore's own test doubles (@sigstore/mock: an ephemeral
 * CA that embeds a signed certificate timestamp, and a log that returns entries with a signed entry
 * timestamp and an inclusion proof), so the real `sigstore` client signs against them and the real
 * @sigstore/verify checks what they made. Not exercised: the public Fulcio, Rekor and TUF services
 * themselves (that the production trust root is theirs).
 *
 * Faithful to recorded behaviour:
 * - the token endpoint answers GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=… with
 *   Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN, as {"value": "<jwt>"} (GitHub's
 *   documented OIDC flow); the JWT carries the claims GitHub documents for a workflow job. It is
 *   not signed by GitHub's key (nothing here could check that; Fulcio does in production);
 * - Fulcio makes the certificate's subject alternative name https://github.com/<job_workflow_ref>
 *   for a GitHub Actions token, as Fulcio does (the mock takes the SAN from one claim, so the
 *   stand-in puts that value there); issuer and workflow extensions come from the claims.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { HashAlgorithm, PublicKeyDetails, TrustedRoot } from '@sigstore/protobuf-specs';

const require = createRequire(import.meta.url);
// The mock's Fulcio and Rekor parts, without its index (which loads nock, an HTTP interceptor these tests do not want).
const fulcio = require('@sigstore/mock/dist/fulcio') as {
  initializeCTLog: (keyPair: KeyPair) => Promise<{ publicKey: Buffer; logID: Buffer }>;
  initializeCA: (keyPair: KeyPair, ctLog: unknown) => Promise<{ rootCertificate: Buffer }>;
  fulcioHandler: (ca: unknown, options: { subjectClaim?: string }) => Handler;
};
const rekor = require('@sigstore/mock/dist/rekor') as {
  initializeTLog: (url: string, keyPair: KeyPair) => Promise<{ publicKey: Buffer }>;
  rekorHandler: (tlog: unknown) => Handler;
};

type KeyPair = ReturnType<typeof generateKeyPairSync>;
interface Handler {
  readonly path: string;
  readonly fn: (body: string) => Promise<{ statusCode: number; response: string; contentType?: string }>;
}

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';

/** The claims of a GitHub Actions OIDC token for a job of `workflow` (a path under .github/workflows/) on `ref` of `repository`. */
export function githubClaims(repository: string, workflow: string, ref: string): Record<string, string | number> {
  const workflowRef = `${repository}/.github/workflows/${workflow}@${ref}`;
  return {
    iss: GITHUB_ISSUER,
    aud: 'sigstore',
    sub: `repo:${repository}:ref:${ref}`,
    repository,
    repository_owner: repository.split('/')[0]!,
    ref,
    sha: 'f'.repeat(40),
    workflow: workflow.replace(/\.ya?ml$/, ''),
    workflow_ref: workflowRef,
    job_workflow_ref: workflowRef,
    event_name: 'schedule',
    runner_environment: 'github-hosted',
    run_id: '1',
    run_attempt: '1',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 300,
  };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url(claims)}.${Buffer.from('not signed').toString('base64url')}`;

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface SigstoreStandIns {
  readonly fulcioUrl: string;
  readonly rekorUrl: string;
  /** The trusted_root.json of this instance (its CA, CT log and transparency log). */
  readonly trustedRootPath: string;
  /** The environment of a GitHub Actions job whose OIDC token has these claims. */
  actionsEnv(claims: Record<string, string | number>): NodeJS.ProcessEnv;
  /** Audiences the token endpoint was asked for, in order. */
  readonly audiences: string[];
  close(): Promise<void>;
}

/** One Sigstore instance of its own (fresh keys), serving on 127.0.0.1; its trust root is written to `trustedRootPath`. */
export async function startSigstore(trustedRootPath: string): Promise<SigstoreStandIns> {
  const ec = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ctLog = await fulcio.initializeCTLog(ec());
  const ca = await fulcio.initializeCA(ec(), ctLog);
  const fulcioHandler = fulcio.fulcioHandler(ca, { subjectClaim: 'fulcio_subject' });
  const fulcioServer = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== fulcioHandler.path) return void response.writeHead(404).end();
    const json = JSON.parse(await body(request)) as { credentials: { oidcIdentityToken: string } };
    const [header, payload, signature] = json.credentials.oidcIdentityToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    // Fulcio's subject for a GitHub Actions token (its "ci provider" principal): the job's workflow file at its ref.
    claims['fulcio_subject'] = `https://github.com/${String(claims['job_workflow_ref'])}`;
    json.credentials.oidcIdentityToken = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const answer = await fulcioHandler.fn(JSON.stringify(json));
    response.writeHead(answer.statusCode, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.response);
  });
  const fulcioUrl = await listen(fulcioServer);
  const rekorKeys = ec();
  const rekorServer = createServer();
  const rekorUrl = await listen(rekorServer);
  const tlog = await rekor.initializeTLog(rekorUrl, rekorKeys);
  const rekorHandler = rekor.rekorHandler(tlog);
  rekorServer.on('request', async (request, response) => {
    if (request.method !== 'POST' || request.url !== rekorHandler.path) return void response.writeHead(404).end();
    const answer = await rekorHandler.fn(await body(request));
    response.writeHead(answer.statusCode, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.response);
  });
  const audiences: string[] = [];
  let claims: Record<string, string | number> = {};
  const REQUEST_TOKEN = 'actions-runtime-request-token';
  const tokenServer = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.headers.authorization !== `Bearer ${REQUEST_TOKEN}`) return void response.writeHead(401).end();
    audiences.push(url.searchParams.get('audience') ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: 1, value: jwt({ ...claims, aud: url.searchParams.get('audience') }) }));
  });
  const tokenUrl = await listen(tokenServer);

  const since = new Date(Date.now() - 60 * 60 * 1000);
  const sha256 = (key: Buffer) => createHash('sha256').update(key).digest();
  const root = TrustedRoot.fromJSON(
    TrustedRoot.toJSON({
      mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
      certificateAuthorities: [{ subject: { commonName: 'sigstore', organization: 'sigstore.mock' }, uri: fulcioUrl, certChain: { certificates: [{ rawBytes: ca.rootCertificate }] }, validFor: { start: since }, operator: 'stand-in' }],
      tlogs: [{ baseUrl: rekorUrl, hashAlgorithm: HashAlgorithm.SHA2_256, publicKey: { rawBytes: tlog.publicKey, keyDetails: PublicKeyDetails.PKIX_ECDSA_P256_SHA_256, validFor: { start: since } }, logId: { keyId: sha256(tlog.publicKey) }, checkpointKeyId: undefined, operator: 'stand-in' }],
      ctlogs: [{ baseUrl: 'http://127.0.0.1/ct', hashAlgorithm: HashAlgorithm.SHA2_256, publicKey: { rawBytes: ctLog.publicKey, keyDetails: PublicKeyDetails.PKIX_ECDSA_P256_SHA_256, validFor: { start: since } }, logId: { keyId: Buffer.from(ctLog.logID) }, checkpointKeyId: undefined, operator: 'stand-in' }],
      timestampAuthorities: [],
    } as unknown as TrustedRoot),
  );
  writeFileSync(trustedRootPath, JSON.stringify(TrustedRoot.toJSON(root), null, 2));

  return {
    fulcioUrl,
    rekorUrl,
    trustedRootPath,
    audiences,
    actionsEnv(next) {
      claims = next;
      return { GITHUB_ACTIONS: 'true', ACTIONS_ID_TOKEN_REQUEST_URL: `${tokenUrl}/token?api-version=2.0`, ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN, SIGSTORE_ID_TOKEN: '' };
    },
    async close() {
      for (const server of [fulcioServer, rekorServer, tokenServer]) await new Promise((resolve) => server.close(resolve));
    },
  };
}
