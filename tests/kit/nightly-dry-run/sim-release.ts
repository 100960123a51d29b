/**
 * A simulated release's server (see story.ts's header): `servebench sim` (its real cost model)
 * behind a front that answers GET /version with the release's name and passes the rest through.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSim } from '../../../harness/lib/process/spawn-cli.ts';

export async function startSimRelease(version: string, decodeBaseMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const sim = await spawnSim(['--decode-base-ms', String(decodeBaseMs), '--model-name', 'sim-model']);
  const target = new URL(sim.url);
  const front: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version, note: `servebench sim behind tests/kit/nightly-dry-run.ts, --decode-base-ms ${decodeBaseMs}` }));
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // A client that gives up (timeout, cancel) ends the stream on the sim too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((done) => front.close(() => done()));
      await sim.stop();
    },
  };
}
