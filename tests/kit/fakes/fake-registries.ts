/**
 * Fake container registries, answering as the real ones do for "does this tag exist?":
 * - Docker Hub's API, `GET /v2/namespaces/{namespace}/repositories/{repository}/tags/{tag}`:
 *   200 with a tag object shaped as the `tag` schema's example in Docker's Hub API reference
 *   (https://docs.docker.com/reference/api/hub/latest/operations/GetRepositoryTag/: creator,
 *   full_size, id, images[{architecture, digest, os, size, status, last_pushed…}], last_updated,
 *   last_updater, last_updater_username, name, repository, tag_last_pulled, tag_last_pushed,
 *   tag_status, v2, media_type, content_type, digest); 404 with
 *   {"message":"httperror 404: tag '<tag>' not found","errinfo":{namespace, repository, tag}}, the
 *   body hub.docker.com sends (quoted in several public bug reports, e.g. for library/rust).
 * - An OCI distribution registry with token authentication, as ghcr.io and nvcr.io answer
 *   anonymous clients (distribution's token spec, https://distribution.github.io/distribution/spec/auth/token/):
 *   `GET /v2/` and manifests without a valid token → 401 with
 *   `WWW-Authenticate: Bearer realm="…",service="…",scope="repository:<name>:pull"` (ghcr.io;
 *   nvcr.io sends no service: `Bearer realm="https://nvcr.io/proxy_auth",scope="repository:<name>:pull"`,
 *   sapcc/keppel#731) and GHCR's body {"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]};
 *   the realm answers {"token": …} for any public repository; `HEAD|GET /v2/<name>/manifests/<tag>`
 *   with the token → 200 (Content-Type, Docker-Content-Digest, Content-Length) or 404
 *   MANIFEST_UNKNOWN. Like GHCR, an index is "not found" unless the Accept header admits OCI
 *   indexes ("OCI index found, but Accept header does not support OCI indexes", Mic92/niks3#229).
 * Each fake can live under a path prefix, so several registries share one fake server.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson, type FakeHandler, type RecordedRequest } from './fake-server.ts';

export interface FakeDockerHub {
  readonly handler: FakeHandler;
  /** "vllm/vllm-openai", "v0.11.0" (an official image is "library/<name>"). */
  push(repository: string, tag: string): void;
}

export function fakeDockerHub(options: { prefix?: string } = {}): FakeDockerHub {
  const prefix = options.prefix ?? '';
  const tags = new Map<string, { id: number; pushed: string }>();
  let nextId = 500_000;
  const handler: FakeHandler = (request, response) => {
    if (request.method !== 'GET') return false;
    const path = new URL(request.url, 'http://fake').pathname;
    if (!path.startsWith(`${prefix}/v2/namespaces/`)) return false;
    const match = /^\/v2\/namespaces\/([^/]+)\/repositories\/([^/]+)\/tags\/([^/]+)$/.exec(path.slice(prefix.length));
    if (!match) return sendJson(response, 404, { message: '404: Page Not Found' });
    const [namespace, repository, tag] = match.slice(1).map(decodeURIComponent) as [string, string, string];
    const found = tags.get(`${namespace}/${repository}:${tag}`);
    if (!found) return sendJson(response, 404, { message: `httperror 404: tag '${tag}' not found`, errinfo: { namespace, repository, tag } });
    const digest = `sha256:${createHash('sha256').update(`${namespace}/${repository}:${tag}`).digest('hex')}`;
    return sendJson(response, 200, {
      creator: 1234,
      id: found.id,
      images: [
        { architecture: 'amd64', features: '', variant: null, digest, os: 'linux', os_features: '', os_version: null, size: 9_876_543_210, status: 'active', last_pulled: null, last_pushed: found.pushed },
      ],
      last_updated: found.pushed,
      last_updater: 1234,
      last_updater_username: 'releasebot',
      name: tag,
      repository: 5678,
      full_size: 9_876_543_210,
      v2: true,
      tag_status: 'active',
      tag_last_pulled: null,
      tag_last_pushed: found.pushed,
      media_type: 'application/vnd.oci.image.index.v1+json',
      content_type: 'image',
      digest,
    });
  };
  return {
    handler,
    push(repository, tag) {
      tags.set(`${repository}:${tag}`, { id: nextId++, pushed: new Date().toISOString() });
    },
  };
}

export interface FakeOciRegistryOptions {
  /** Path prefix the registry lives under, e.g. "/ghcr": its base URL is <server>/ghcr. */
  readonly prefix: string;
  /** The challenge's service (ghcr.io: "ghcr.io"); null to leave it out, as nvcr.io does. */
  readonly service: string | null;
  /** The token endpoint's path (ghcr.io: /token; nvcr.io: /proxy_auth). */
  readonly realmPath: string;
}

export interface FakeOciRegistry {
  readonly handler: FakeHandler;
  /** Publishes `name:tag` as a multi-arch OCI index (what these engines publish). */
  push(name: string, tag: string, mediaType?: string): void;
}

export function fakeOciRegistry(options: FakeOciRegistryOptions): FakeOciRegistry {
  const { prefix } = options;
  const manifests = new Map<string, string>();
  // token → the repository it may pull
  const tokens = new Map<string, string>();

  const challenge = (base: string, scope: string | null) =>
    `Bearer realm="${base}${prefix}${options.realmPath}"${options.service !== null ? `,service="${options.service}"` : ''}${scope ? `,scope="${scope}"` : ''}`;

  const unauthorized = (response: ServerResponse, base: string, scope: string | null) =>
    sendJson(response, 401, { errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] }, { 'www-authenticate': challenge(base, scope), 'docker-distribution-api-version': 'registry/2.0' });

  const handler: FakeHandler = (request: RecordedRequest, response: ServerResponse) => {
    const url = new URL(request.url, 'http://fake');
    if (!url.pathname.startsWith(`${prefix}/`)) return false;
    const path = url.pathname.slice(prefix.length);
    const base = `http://${request.headers.host}`;

    if (path === options.realmPath && request.method === 'GET') {
      const scope = url.searchParams.get('scope') ?? '';
      const service = url.searchParams.get('service');
      const repo = /^repository:([^:]+):pull$/.exec(scope)?.[1];
      if (!repo) return sendJson(response, 400, { errors: [{ code: 'DENIED', message: 'invalid scope' }] });
      if (options.service !== null && service !== null && service !== options.service) return sendJson(response, 400, { errors: [{ code: 'DENIED', message: 'invalid service' }] });
      const token = randomBytes(12).toString('hex');
      tokens.set(token, repo);
      return sendJson(response, 200, { token });
    }

    if (path === '/v2/' || path === '/v2') return unauthorized(response, base, null);

    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(path);
    if (!manifest || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const [name, reference] = [manifest[1]!, decodeURIComponent(manifest[2]!)];
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || tokens.get(bearer) !== name) return unauthorized(response, base, `repository:${name}:pull`);

    const mediaType = manifests.get(`${name}:${reference}`);
    if (!mediaType) return sendJson(response, 404, { errors: [{ code: 'MANIFEST_UNKNOWN', message: 'manifest unknown' }] });
    const accepted = String(request.headers.accept ?? '').split(',').map((type) => type.trim().split(';')[0]);
    if (!accepted.includes(mediaType)) {
      return sendJson(response, 404, { errors: [{ code: 'MANIFEST_UNKNOWN', message: 'OCI index found, but Accept header does not support OCI indexes' }] });
    }
    const body = JSON.stringify({ schemaVersion: 2, mediaType, manifests: [] });
    response.writeHead(200, {
      'content-type': mediaType,
      'content-length': Buffer.byteLength(body),
      'docker-content-digest': `sha256:${createHash('sha256').update(body).digest('hex')}`,
      'docker-distribution-api-version': 'registry/2.0',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  };

  return {
    handler,
    push(name, tag, mediaType = 'application/vnd.oci.image.index.v1+json') {
      manifests.set(`${name}:${tag}`, mediaType);
    },
  };
}
