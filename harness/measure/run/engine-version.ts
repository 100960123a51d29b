/** The running engine's version, the way its spec says to read it (HTTP field or a command). */
import { execFile } from 'node:child_process';
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import type { Engine } from '../../contract/engine.ts';
import type { LaunchedServer } from './launched-server.ts';

/** A version field lives in a small JSON document (vLLM's /version, llama.cpp's /props: tens of KB). */
export const ENGINE_VERSION_LIMITS: ReadLimits = { maxBytes: 1024 * 1024, timeoutMs: 10_000 };

export async function engineVersion(engine: Engine, server: LaunchedServer): Promise<string | null> {
  const how = engine.version;
  if ('http' in how) {
    try {
      const response = await requestBounded(`${server.endpoint}${how.http}`, {}, ENGINE_VERSION_LIMITS);
      const value = (response.json() as Record<string, unknown> | null)?.[how.field];
      return response.status === 200 && (typeof value === 'string' || typeof value === 'number') ? String(value) : null;
    } catch {
      return null;
    }
  }
  // A command tells the truth about the installation that serves: this machine's for a process
  // launch, the running container's for docker (`docker exec`, so the image's own program answers:
  // LMDeploy's server has no version endpoint, and a completed result needs its version).
  const argv = server.launcher === 'process' ? how.command : server.launcher === 'docker' && server.container ? ['docker', 'exec', server.container, ...how.command] : null;
  if (argv === null) return null;
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { timeout: 20_000 }, (error, stdout, stderr) => {
      const text = `${stdout}${stderr}`.trim().split('\n')[0]?.trim() ?? '';
      resolve(error || text === '' ? null : text.slice(0, 200));
    });
  });
}
