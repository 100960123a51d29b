/**
 * The target server: its URL, and a preflight that fails fast (exit 2) when it cannot be reached
 * or does not serve the model, instead of recording a run of connection errors.
 */
import { usageError } from '../../lib/errors.ts';
import { BoundedReadError, requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import { redactUrl } from '../../contract/credentials.ts';

export interface Endpoint {
  /** scheme://host:port, what undici's Pool connects to. */
  readonly origin: string;
  /** Path prefix before /v1/… (usually ''). */
  readonly basePath: string;
  /** The endpoint as recorded in results: no credentials, query or fragment. */
  readonly display: string;
  /** "Basic …" from user:password@ in the URL (sent as Authorization unless one is given), else null. */
  readonly basicAuth: string | null;
}

export function parseEndpoint(text: string): Endpoint {
  let url: URL;
  // Error messages reach logs: the URL is quoted without its credentials.
  const shown = redactUrl(text);
  try {
    url = new URL(text);
  } catch {
    throw usageError(`--endpoint: "${shown}" is not a URL; write e.g. http://127.0.0.1:8000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--endpoint: "${shown}" must use http:// or https://`);
  }
  if (url.search || url.hash) throw usageError(`--endpoint: "${shown}" must not have a query or fragment (give tokens with --api-key or --header)`);
  // Accept both http://host:port and http://host:port/v1, as users copy either.
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  let basicAuth: string | null = null;
  if (url.username || url.password) {
    try {
      basicAuth = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    } catch {
      throw usageError(`--endpoint: the user name or password in "${shown}" is not valid percent-encoding; write a literal % as %25`);
    }
  }
  return { origin: url.origin, basePath, display: `${url.origin}${basePath}`, basicAuth };
}

/** The headers for a GET: credentials and the user's own, without the POST's content-type and accept. */
export function getHeaders(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _contentType, accept: _accept, ...rest } = headers;
  return rest;
}

export interface ServerFacts {
  readonly servedModels: string[] | null;
  readonly serverVersion: string | null;
}

/**
 * /v1/models: a single-model engine answers in well under a kilobyte; a gateway listing hundreds
 * of models with their metadata, around a megabyte. 10 s: a healthy server answers at once.
 */
export const MODELS_LIMITS: ReadLimits = { maxBytes: 8 * 1024 * 1024, timeoutMs: 10_000 };
/**
 * /version is a few bytes; /props (llama.cpp: settings and the chat template) and /server_info
 * (SGLang: every server argument) are tens of kilobytes.
 */
export const VERSION_LIMITS: ReadLimits = { maxBytes: 1024 * 1024, timeoutMs: 10_000 };

async function getJson(url: string, headers: Record<string, string>, limits: ReadLimits): Promise<{ status: number; body: unknown }> {
  const response = await requestBounded(url, { method: 'GET', headers }, limits);
  return { status: response.status, body: response.json() };
}

const VERSION_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ['/version', 'version'],
  ['/props', 'build_info'],
  ['/server_info', 'version'],
];

/** GET /v1/models and the version. Unreachable server or unserved model: a usage error. */
export async function preflight(endpoint: Endpoint, model: string, headers: Record<string, string>): Promise<ServerFacts> {
  let models: { status: number; body: unknown };
  try {
    models = await getJson(`${endpoint.origin}${endpoint.basePath}/v1/models`, headers, MODELS_LIMITS);
  } catch (error) {
    // It answered, but not as a server does: say so, rather than that it cannot be reached.
    if (error instanceof BoundedReadError) {
      throw usageError(`${error.message}; ${error.limit === 'size' ? `is ${endpoint.display} an OpenAI-compatible server?` : 'is the server overloaded or hung?'}`);
    }
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw usageError(`cannot reach ${endpoint.display} (${code}); is the server running and listening there?`);
  }
  if (models.status === 401 || models.status === 403) {
    throw usageError(`${endpoint.display} refused the credentials (HTTP ${models.status}); check --api-key or --header`);
  }
  let servedModels: string[] | null = null;
  const data = (models.body as { data?: unknown } | null)?.data;
  if (models.status === 200 && Array.isArray(data)) {
    servedModels = data.map((entry) => String((entry as { id?: unknown }).id));
    // llama-server without --alias names its model after the file: by the path it was given in
    // some releases (b5415, v0.4.0), by the file's name alone in others (b8095); it serves that one
    // model whatever a request names.
    const fileName = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : null;
    if (!servedModels.includes(model) && !(fileName !== null && /\.gguf$/i.test(fileName) && servedModels.includes(fileName))) {
      throw usageError(`--model: "${model}" is not served by ${endpoint.display}; it serves: ${servedModels.join(', ') || '(none)'}`);
    }
  }
  let serverVersion: string | null = null;
  // vLLM (and the sim) answer GET /version; llama.cpp has build_info in /props; SGLang /server_info.
  for (const [path, field] of VERSION_SOURCES) {
    try {
      const answer = await getJson(`${endpoint.origin}${endpoint.basePath}${path}`, headers, VERSION_LIMITS);
      const value = (answer.body as Record<string, unknown> | null)?.[field];
      if (answer.status === 200 && typeof value === 'string' && value !== '') {
        serverVersion = value.slice(0, 200);
        break;
      }
    } catch {
      // not this server's way; try the next
    }
  }
  return { servedModels, serverVersion };
}
