/** servebench's cache folder: built engines and generated models live here, never in the repository. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** $SERVEBENCH_CACHE, else $XDG_CACHE_HOME/servebench, else ~/.cache/servebench. */
export function servebenchCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['SERVEBENCH_CACHE'] ?? join(env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'servebench');
}
