/** The running engine's version, the way its spec says to read it (HTTP field or a command). */
import { execFile } from 'node:child_process';
import { request } from 'undici';
import type { Engine } from '../schema/engine.ts';
import type { LaunchedServer } from './launched-server.ts';

export async function engineVersion(engine: Engine, server: LaunchedServer): Promise<string | null> {
  const how = engine.version;
  if ('http' in how) {
    try {
      const response = await request(`${server.endpoint}${how.http}`, { headersTimeout: 5000, bodyTimeout: 5000 });
      const body = (await response.body.json()) as Record<string, unknown>;
      const value = body[how.field];
      return response.statusCode === 200 && (typeof value === 'string' || typeof value === 'number') ? String(value) : null;
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
