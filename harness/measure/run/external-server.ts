/** The `external` launcher: an endpoint someone else runs; nothing to start or stop. */
import type { LaunchedServer } from './launched-server.ts';

export function externalServer(endpoint: string): LaunchedServer {
  return {
    endpoint: endpoint.replace(/\/+$/, '').replace(/\/v1$/, ''),
    logFile: null,
    launcher: 'external',
    command: [],
    image: null,
    imageDigest: null,
    pid: null,
    exitStatus: () => null,
    stop: async () => {},
  };
}
