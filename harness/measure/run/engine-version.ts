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
  // A command only tells the truth about a server started from this machine's installation.
  if (server.launcher !== 'process') return null;
  return new Promise((resolve) => {
    execFile(how.command[0]!, how.command.slice(1), { timeout: 20_000 }, (error, stdout, stderr) => {
      const text = `${stdout}${stderr}`.trim().split('\n')[0]?.trim() ?? '';
      resolve(error || text === '' ? null : text.slice(0, 200));
    });
  });
}
