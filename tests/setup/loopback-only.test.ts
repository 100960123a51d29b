/**
 * The unit run makes no request off the machine (tests/setup/loopback-only.mjs): a connection to
 * any host but loopback is refused before it is tried (192.0.2.1 is TEST-NET-1, RFC 5737: never
 * routed, so without the guard the attempt would hang or fail some other way, not with this error),
 * in the test worker and in a Node process the test starts; loopback keeps working.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { connectTarget, isLoopbackHost, takeRefusedConnections } from './loopback-only.mjs';

describe('the loopback guard', () => {
  it('fetch to another host fails at once with the guard error, and the attempt is recorded', async () => {
    const error = (await fetch('http://192.0.2.1:8080/').catch((e: unknown) => e)) as Error & { cause?: NodeJS.ErrnoException };
    expect(error.cause?.code).toBe('ERR_SERVEBENCH_OFF_MACHINE');
    expect(error.cause?.message).toContain('a connection to 192.0.2.1:8080 was refused');
    // Drained here, so this test's own attempt does not fail it in the setup's afterEach.
    expect(takeRefusedConnections()).toEqual(['192.0.2.1:8080']);
  });

  it('a host name is refused before it is looked up (no DNS query leaves either)', async () => {
    const socket = net.connect({ host: 'registry.npmjs.org', port: 443 });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => socket.on('error', resolve));
    expect(error.code).toBe('ERR_SERVEBENCH_OFF_MACHINE');
    expect(takeRefusedConnections()).toEqual(['registry.npmjs.org:443']);
  });

  it('a Node process the test starts is guarded too (NODE_OPTIONS)', () => {
    const child = spawnSync(process.execPath, ['-e', "fetch('http://192.0.2.1:8080/').then(() => console.log('reached'), (e) => console.log(e.cause?.code))"], { encoding: 'utf8', timeout: 30_000 });
    expect(child.stdout.trim()).toBe('ERR_SERVEBENCH_OFF_MACHINE');
    expect(child.stderr).toContain('the unit tests make no request off this machine');
  });

  it('loopback servers still answer (127.0.0.1, localhost)', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
      expect(await (await fetch(`http://localhost:${port}/`).catch(() => fetch(`http://127.0.0.1:${port}/`))).text()).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('what counts as loopback, and where a connect call goes', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST.', '::1', '[::1]', '::ffff:127.0.0.1', 'a.localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['10.0.0.1', '0.0.0.0', 'example.com', '127.0.0.1.example.com', '::ffff:10.0.0.1', '1270.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
    expect(connectTarget([[{ host: 'h', port: 1 }, () => {}]])).toEqual({ host: 'h', port: 1 });
    expect(connectTarget([{ port: 80 }])).toEqual({ host: 'localhost', port: 80 });
    expect(connectTarget([{ path: '/tmp/s.sock' }])).toEqual({ path: '/tmp/s.sock' });
    expect(connectTarget([8080, 'example.com'])).toEqual({ host: 'example.com', port: 8080 });
    expect(connectTarget(['/run/docker.sock'])).toEqual({ path: '/run/docker.sock' });
  });
});
