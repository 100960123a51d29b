/**
 * Is an engine's official image for a version published yet? The tag is rendered from the
 * engine's template and looked up without pulling anything:
 * - Docker Hub (an image name without a registry host): the Hub API's tag endpoint, 200 or 404.
 *   https://docs.docker.com/reference/api/hub/latest/operations/GetRepositoryTag/
 * - Any other registry (ghcr.io, nvcr.io, …): the OCI distribution API, `HEAD /v2/<name>/manifests/<tag>`.
 *   Public images still need an anonymous bearer token, got the standard way, whatever the
 *   registry: the 401 names the token service in `WWW-Authenticate: Bearer realm=…,service=…,scope=…`
 *   (nvcr.io leaves out service), and a GET of realm?service=…&scope=… answers {"token": …}.
 *   https://distribution.github.io/distribution/spec/auth/token/
 *   https://github.com/opencontainers/distribution-spec/blob/main/spec.md#checking-if-content-exists-in-the-registry
 * The manifest itself is probed for the challenge (not /v2/): its 401 carries the exact scope and
 * saves a request.
 */
import { usageError } from '../../lib/errors.ts';
import { SERVEBENCH_VERSION } from '../../lib/version.ts';
import { HttpError, send, summarizeBody, type HttpPolicy, type HttpResponse } from './http-conditional.ts';

export const REGISTRY_OVERRIDE_ENV = 'SERVEBENCH_REGISTRY_OVERRIDE';
export const DOCKER_HUB = 'docker.io';

export interface ImageRef {
  /** "docker.io" or the registry host ("ghcr.io", "nvcr.io", "localhost:5000"). */
  readonly registry: string;
  /** The repository within the registry: "vllm/vllm-openai", "library/ubuntu", "nvidia/tensorrt-llm/release". */
  readonly name: string;
  readonly tag: string;
  /** As the engine spec writes it, with the tag: "vllm/vllm-openai:v0.11.0". */
  readonly display: string;
}

const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com', 'hub.docker.com']);
// https://github.com/opencontainers/distribution-spec/blob/main/spec.md#pulling-manifests
const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/** Every manifest kind an image tag can point at; GHCR answers 404 for an index the client did not accept. */
const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** `repository` as in an engine spec ("vllm/vllm-openai", "ghcr.io/ggml-org/llama.cpp") and a tag. */
export function imageRef(repository: string, tag: string): ImageRef {
  if (!TAG_PATTERN.test(tag)) throw new Error(`"${tag}" is not a valid image tag`);
  const parts = repository.split('/');
  const first = parts[0]!;
  const hasHost = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const host = hasHost ? first.toLowerCase() : DOCKER_HUB;
  const path = hasHost ? parts.slice(1) : parts;
  const registry = DOCKER_HUB_ALIASES.has(host) ? DOCKER_HUB : host;
  const name = registry === DOCKER_HUB && path.length === 1 ? `library/${path[0]}` : path.join('/');
  return { registry, name, tag, display: `${repository}:${tag}` };
}

/**
 * Registry host → base URL, from `HOST=URL` items (the flag, repeatable; the environment variable,
 * comma-separated). For Docker Hub the URL replaces the Hub API (https://hub.docker.com), for
 * the others the registry (https://HOST).
 */
export function parseRegistryOverrides(items: readonly string[], env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const overrides = new Map<string, string>();
  const fromEnv = (env[REGISTRY_OVERRIDE_ENV] ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
  for (const [item, where] of [...fromEnv.map((item) => [item, `$${REGISTRY_OVERRIDE_ENV}`] as const), ...items.map((item) => [item, '--registry-url'] as const)]) {
    const eq = item.indexOf('=');
    const host = item.slice(0, eq).trim().toLowerCase();
    const url = item.slice(eq + 1).trim();
    if (eq <= 0 || !/^https?:\/\/[^/]/.test(url)) throw usageError(`${where}: "${item}" is not HOST=URL, e.g. ghcr.io=http://127.0.0.1:5000`);
    overrides.set(DOCKER_HUB_ALIASES.has(host) ? DOCKER_HUB : host, url.replace(/\/+$/, ''));
  }
  return overrides;
}

export interface RegistryClient {
  /** true: the tag exists; false: not (yet). Throws when the registry cannot say. */
  imageExists(image: ImageRef): Promise<boolean>;
}

export function registryClient(overrides: ReadonlyMap<string, string>, policy: HttpPolicy): RegistryClient {
  // Anonymous pull tokens, per registry and repository, for the length of one poll.
  const tokens = new Map<string, string>();
  const userAgent = `servebench/${SERVEBENCH_VERSION}`;

  async function dockerHubTagExists(image: ImageRef): Promise<boolean> {
    const base = overrides.get(DOCKER_HUB) ?? 'https://hub.docker.com';
    const [namespace, repository, ...rest] = image.name.split('/');
    if (!repository || rest.length > 0) throw new Error(`${image.display}: a Docker Hub repository is NAMESPACE/NAME`);
    const url = `${base}/v2/namespaces/${encodeURIComponent(namespace!)}/repositories/${encodeURIComponent(repository)}/tags/${encodeURIComponent(image.tag)}`;
    const response = await send({ url, headers: { accept: 'application/json', 'user-agent': userAgent } }, policy);
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw unexpected(image, response);
  }

  async function ociManifestExists(image: ImageRef): Promise<boolean> {
    const base = overrides.get(image.registry) ?? `https://${image.registry}`;
    const url = `${base}/v2/${image.name}/manifests/${encodeURIComponent(image.tag)}`;
    const key = `${base} ${image.name}`;
    const headers: Record<string, string> = { accept: MANIFEST_ACCEPT, 'user-agent': userAgent };
    const cached = tokens.get(key);
    if (cached) headers['authorization'] = `Bearer ${cached}`;
    let response = await head(url, headers);
    if (response.status === 401) {
      const token = await anonymousToken(image, response);
      tokens.set(key, token);
      response = await head(url, { ...headers, authorization: `Bearer ${token}` });
    }
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw unexpected(image, response);
  }

  async function head(url: string, headers: Record<string, string>): Promise<HttpResponse> {
    const response = await send({ method: 'HEAD', url, headers }, policy);
    // HEAD is in the spec, but a registry that refuses it still answers GET.
    return response.status === 405 ? send({ url, headers }, policy) : response;
  }

  async function anonymousToken(image: ImageRef, challenged: HttpResponse): Promise<string> {
    const challenge = parseWwwAuthenticate(challenged.headers['www-authenticate']);
    const realm = challenge?.scheme === 'bearer' ? challenge.params['realm'] : undefined;
    if (!challenge || !realm || !/^https?:\/\//.test(realm)) {
      throw new HttpError(`${image.display}: ${image.registry} answered 401 without a bearer token service (WWW-Authenticate: ${challenged.headers['www-authenticate'] ?? 'none'}); the image is not public`, challenged.url, 401);
    }
    const tokenUrl = new URL(realm);
    // Only what the challenge names (nvcr.io has no service); the scope defaults to pulling this repository.
    if (challenge.params['service'] !== undefined) tokenUrl.searchParams.set('service', challenge.params['service']);
    tokenUrl.searchParams.set('scope', challenge.params['scope'] ?? `repository:${image.name}:pull`);
    const response = await send({ url: tokenUrl.href, headers: { accept: 'application/json', 'user-agent': userAgent } }, policy);
    if (response.status !== 200) {
      throw new HttpError(`${image.display}: the token service ${tokenUrl.origin}${tokenUrl.pathname} answered ${response.status} ${summarizeBody(response.body)}for an anonymous pull token`, tokenUrl.href, response.status);
    }
    let body: { token?: unknown; access_token?: unknown };
    try {
      body = JSON.parse(response.body) as typeof body;
    } catch {
      throw new HttpError(`${image.display}: the token service answered 200 with a body that is not JSON`, tokenUrl.href, 200);
    }
    const token = typeof body.token === 'string' ? body.token : typeof body.access_token === 'string' ? body.access_token : null;
    if (!token) throw new HttpError(`${image.display}: the token service's answer has no token`, tokenUrl.href, 200);
    return token;
  }

  return {
    imageExists: (image) => (image.registry === DOCKER_HUB ? dockerHubTagExists(image) : ociManifestExists(image)),
  };
}

function unexpected(image: ImageRef, response: HttpResponse): HttpError {
  return new HttpError(`${image.display}: ${new URL(response.url).host} answered ${response.status} ${summarizeBody(response.body)}for the tag`, response.url, response.status);
}

export interface AuthChallenge {
  /** Lower-case: "bearer", "basic". */
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** `Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:o/r:pull"` (quoted or bare values, RFC 7235). */
export function parseWwwAuthenticate(header: string | undefined): AuthChallenge | null {
  const scheme = header ? /^\s*([A-Za-z][\w-]*)(?:\s+|$)/.exec(header) : null;
  if (!header || !scheme) return null;
  const params: Record<string, string> = {};
  const rest = header.slice(scheme[0].length);
  for (const match of rest.matchAll(/([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g)) {
    params[match[1]!.toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!;
  }
  return { scheme: scheme[1]!.toLowerCase(), params };
}
