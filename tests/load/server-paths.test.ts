/**
 * Values a server chooses never become paths outside servebench's folders: a Hugging Face mirror's
 * x-repo-commit (a real hostile HTTP server on 127.0.0.1 that answers with "../../../tmp/x"), a
 * refs/main in the cache written by such a download, and the tarball name `npm pack` prints (it
 * comes from the registry's manifest; the registry cannot be reached from tests, so a fake `npm`
 * on PATH prints what a hostile manifest would make it print — that fake is the only stand-in here).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { registrySource } from '../../harness/measure/builds/llamacpp-source.ts';
import { downloadTokenizer } from '../../harness/measure/tokenizer/hub-download.ts';
import { resolveTokenizerLocation } from '../../harness/measure/tokenizer/locate.ts';

const COMMIT = 'a'.repeat(40);

describe('a Hugging Face mirror that names its commit "../../../tmp/x"', () => {
  let server: Server;
  let url = '';
  /** The x-repo-commit header the server sends next (undefined: none). */
  let commit: string | string[] | undefined;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
      if (commit !== undefined) headers['x-repo-commit'] = commit;
      response.writeHead(request.url?.endsWith('/tokenizer.json') || request.url?.endsWith('/tokenizer_config.json') ? 200 : 404, headers).end('{"model":{}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  /** A cache inside a fresh folder: anything written outside the cache is still inside `root`, where the test can see it. */
  function cache(): { root: string; hub: string } {
    const root = mkdtempSync(join(tmpdir(), 'sb-hub-paths-'));
    return { root, hub: join(root, 'hub') };
  }

  for (const hostile of ['../../../tmp/x', '../../../../../../../tmp/x', '/tmp/x', 'main', 'A'.repeat(40), ['a'.repeat(40), 'b'.repeat(40)]]) {
    it(`x-repo-commit ${JSON.stringify(hostile)}: refused naming the header, nothing written anywhere`, async () => {
      commit = hostile;
      const { root, hub } = cache();
      const error = await downloadTokenizer('acme/model', { HF_ENDPOINT: url, HF_HUB_CACHE: hub }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServebenchError);
      expect((error as Error).message).toMatch(/^--tokenizer: http:\/\/127\.0\.0\.1:\d+ sent x-repo-commit ".*" for acme\/model\/tokenizer\.json, which is not a commit \(40 hex digits\); nothing was written/);
      expect(readdirSync(root)).toEqual([]);
      expect(existsSync('/tmp/x/tokenizer.json')).toBe(false);
    });
  }

  it('a 40-hex commit names the snapshot folder, and refs/main points to it', async () => {
    commit = COMMIT;
    const { hub } = cache();
    const snapshot = await downloadTokenizer('acme/model', { HF_ENDPOINT: url, HF_HUB_CACHE: hub });
    expect(snapshot).toBe(join(hub, 'models--acme--model', 'snapshots', COMMIT));
    expect(resolveTokenizerLocation('acme/model', '--tokenizer', { HF_HUB_CACHE: hub })).toBe(snapshot);
  });

  it('no x-repo-commit: the snapshot is "main", as before', async () => {
    commit = undefined;
    const { hub } = cache();
    expect(await downloadTokenizer('acme/model', { HF_ENDPOINT: url, HF_HUB_CACHE: hub })).toBe(join(hub, 'models--acme--model', 'snapshots', 'main'));
  });

  it('a refs/main left by an earlier hostile download is not followed out of the cache', () => {
    const { root, hub } = cache();
    const repo = join(hub, 'models--acme--model');
    // What the old code wrote for "../../../x": the tokenizer outside the cache, the ref pointing there.
    mkdirSync(join(root, 'x'), { recursive: true });
    writeFileSync(join(root, 'x', 'tokenizer.json'), '{}');
    mkdirSync(join(repo, 'snapshots'), { recursive: true });
    mkdirSync(join(repo, 'refs'), { recursive: true });
    writeFileSync(join(repo, 'refs', 'main'), '../../../x');
    expect(existsSync(join(repo, 'snapshots', '../../../x', 'tokenizer.json'))).toBe(true);
    expect(() => resolveTokenizerLocation('acme/model', '--tokenizer', { HF_HUB_CACHE: hub })).toThrow(/the cached acme\/model has no tokenizer\.json in /);
    // With a real snapshot next to it, that one is taken.
    mkdirSync(join(repo, 'snapshots', COMMIT));
    writeFileSync(join(repo, 'snapshots', COMMIT, 'tokenizer.json'), '{}');
    expect(resolveTokenizerLocation('acme/model', '--tokenizer', { HF_HUB_CACHE: hub })).toBe(join(repo, 'snapshots', COMMIT));
  });
});

describe('npm pack names its tarball from the registry manifest', () => {
  it('a name with a path in it is refused before it is read or unpacked (a fake npm on PATH)', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'sb-fake-npm-'));
    // Prints what `npm pack --silent` prints: the tarball's name, here from a hostile manifest.
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "../../../../etc/passwd"\n');
    chmodSync(join(bin, 'npm'), 0o755);
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}:${path}`;
    try {
      await expect(registrySource('3.16.0')).rejects.toThrow(/^npm pack node-llama-cpp@3\.16\.0 named its tarball "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd", not a file name in its folder/);
    } finally {
      process.env['PATH'] = path;
    }
  });
});
