/**
 * The npm registry's packument (GET <registry>/<package>: every version's manifest and, in `time`,
 * each version's publication date), read with the same conditional GET, rate-limit and retry
 * rules as GitHub (http-conditional.ts): an unchanged packument costs a 304 when the registry sent
 * an ETag (registry.npmjs.org does; a mirror may not, and then every poll reads it whole).
 * The registry is npm's own setting, $npm_config_registry (what `npm pack` uses too, so the
 * tarballs detect reads come from the registry the versions were listed by), else registry.npmjs.org.
 * https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md#getpackage
 */
import { z } from 'zod';
import { SERVEBENCH_VERSION } from '../../lib/version.ts';
import { conditionalGet, HttpError, summarizeBody, type HttpPolicy } from './http-conditional.ts';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';
/** npm's own variable (npm sets it for `npm run` scripts from .npmrc): packument and tarballs from one registry. */
export const NPM_REGISTRY_ENV = 'npm_config_registry';

export interface NpmClient {
  /** Without a trailing slash. */
  readonly registryUrl: string;
  readonly policy: HttpPolicy;
}

export function npmClient(policy: HttpPolicy, env: NodeJS.ProcessEnv = process.env): NpmClient {
  const configured = env[NPM_REGISTRY_ENV]?.trim();
  return { registryUrl: (configured ? configured : DEFAULT_NPM_REGISTRY).replace(/\/+$/, ''), policy };
}

/** The request path of a package's packument, as the detect state keys its ETag ("/node-llama-cpp", "/@scope%2fname"). */
export function packumentPath(name: string): string {
  return `/${name.startsWith('@') ? name.replace('/', '%2f') : name}`;
}

export interface NpmVersion {
  readonly version: string;
  /** ISO 8601, from the packument's `time`; null when the registry leaves it out. */
  readonly published_at: string | null;
  /** The deprecation message, when the version is deprecated. */
  readonly deprecated: string | null;
}

export type PackumentResult = { readonly changed: false; readonly etag: string | null } | { readonly changed: true; readonly etag: string | null; readonly versions: NpmVersion[] };

// Only what detect reads; the rest of a manifest (scripts, dependencies, dist…) is left alone.
const PackumentSchema = z
  .object({
    name: z.string(),
    versions: z.record(z.string(), z.object({ version: z.string(), deprecated: z.string().optional() }).loose()),
    time: z.record(z.string(), z.string()).optional(),
  })
  .loose();

/**
 * The package's versions (every one the packument lists), or changed: false on a 304. The full
 * packument, not the abbreviated one (application/vnd.npm.install-v1+json): only the full one has
 * `time`, the publication dates.
 */
export async function fetchPackument(client: NpmClient, name: string, etag: string | null): Promise<PackumentResult> {
  const url = `${client.registryUrl}${packumentPath(name)}`;
  const result = await conditionalGet(
    { url, headers: { accept: 'application/json', 'user-agent': `servebench/${SERVEBENCH_VERSION}` }, rateLimitHint: 'the npm registry limits by address; try again later, or raise --max-wait' },
    etag,
    client.policy,
  );
  if (result.notModified) return { changed: false, etag: result.etag };
  const { response } = result;
  if (response.status !== 200) {
    const hint = response.status === 404 ? `; check source.npm ("${name}") in the engine spec` : '';
    throw new HttpError(`the npm registry answered ${response.status} ${summarizeBody(response.body)}for ${url}${hint}`, url, response.status);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(response.body);
  } catch {
    throw new HttpError(`the npm registry answered 200 with a body that is not JSON for ${url}`, url, 200);
  }
  const parsed = PackumentSchema.safeParse(raw);
  if (!parsed.success) throw new HttpError(`the npm registry's packument for ${name} (${url}) has no "versions" object of manifests: ${parsed.error.issues[0]?.message ?? 'unreadable'}`, url, 200);
  const time = parsed.data.time ?? {};
  const versions = Object.values(parsed.data.versions).map((manifest) => ({
    version: manifest.version,
    published_at: normalizeTime(time[manifest.version]),
    deprecated: manifest.deprecated ?? null,
  }));
  return { changed: true, etag: result.etag, versions };
}

/** The registry writes "2025-05-17T12:00:00.000Z"; some mirrors "…000000+00:00": both read as the same instant. */
function normalizeTime(value: string | undefined): string | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** A release page for people: the package's version on npmjs.com. */
export function npmVersionUrl(name: string, version: string): string {
  return `https://www.npmjs.com/package/${name}/v/${version}`;
}
