/**
 * The servebench repository a site names (raw-file links, the Reproduce block's clone), as a plain
 * https URL a reader can paste: the site's own configuration, never a result's. A git remote in
 * any of its forms (scp-like git@host:path, ssh://, git://, http(s):// with credentials) becomes
 * https://host/path; anything else is not a repository URL.
 */
import { execFileSync } from 'node:child_process';
import { usageError } from '../lib/errors.ts';

/** Host (and port) and path segments of a URL that displays and copies as itself. */
const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?$/;
const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** https://host/path of a git remote or repository URL; null when it is not one (a local path, odd characters). */
export function httpsRepositoryUrl(remote: string): string | null {
  const text = remote.trim();
  const scp = /^(?:[A-Za-z0-9._-]+@)?([^/:@\s]+):(?!\/\/)(.+)$/.exec(text);
  const url = /^(?:https?|ssh|git(?:\+ssh)?):\/\/(?:[^@/\s]*@)?([^/\s]+)\/(.+)$/.exec(text);
  const [host, path] = scp && !text.includes('://') ? [scp[1]!, scp[2]!] : url ? [url[1]!, url[2]!] : [null, null];
  if (host === null || path === null) return null;
  // ssh's port is not the web server's: keep a port only from an http(s) URL.
  const webHost = /^https?:/.test(text) ? host : host.replace(/:[0-9]+$/, '');
  const segments = path.replace(/\/+$/, '').replace(/\.git$/, '').split('/');
  if (!HOST.test(webHost) || segments.some((segment) => !SEGMENT.test(segment) || segment === '.' || segment === '..')) return null;
  return `https://${webHost}/${segments.join('/')}`;
}

/** The `origin` remote of the git checkout at `cwd`, as https; null outside git, without one, or when it is a local path. */
export function checkoutOriginUrl(cwd: string = process.cwd()): string | null {
  try {
    const remote = execFileSync('git', ['remote', 'get-url', 'origin'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    return httpsRepositoryUrl(remote);
  } catch {
    return null;
  }
}

/**
 * The repository links to raw result files point into and the Reproduce block clones, from the
 * configuration of this build, never from a result: SERVEBENCH_REPO_URL, else the repository of
 * the GitHub Actions run, else the checkout's git remote `origin`; each as https://host/path.
 * null: none (pages and reports use relative paths; the Reproduce block says it names no repository).
 */
export function repositoryUrlFromEnv(env: Readonly<Record<string, string | undefined>>, origin: () => string | null = checkoutOriginUrl): string | null {
  const configured = env['SERVEBENCH_REPO_URL'] || (env['GITHUB_SERVER_URL'] && env['GITHUB_REPOSITORY'] ? `${env['GITHUB_SERVER_URL']}/${env['GITHUB_REPOSITORY']}` : '');
  if (!configured) return origin();
  const url = httpsRepositoryUrl(configured);
  if (url === null) throw usageError(`SERVEBENCH_REPO_URL (or GITHUB_SERVER_URL/GITHUB_REPOSITORY): "${configured.slice(0, 100).replace(/[^\x20-\x7e]/g, '?')}" is not a repository URL; set it to e.g. https://github.com/OWNER/REPO`);
  return url;
}
