/**
 * Finding the model's tokenizer: a path, the local Hugging Face cache, or the Hub. The Hub is a
 * local fake here (the network is closed): it answers like the real one (resolve/main URLs, a
 * redirect to a CDN path, x-repo-commit, 404 for absent files, 401 for gated models).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModelTokenizer, obtainModelTokenizer } from '../../harness/measure/tokenizer/hf-tokenizer.ts';

const FIXTURE = 'tests/fixtures/tokenizer-bpe';

describe('tokenizer location', () => {
  it('finds a model id in the Hugging Face cache at the revision refs/main names', () => {
    const cache = mkdtempSync(join(tmpdir(), 'hf-cache-'));
    const repo = join(cache, 'models--acme--tiny');
    mkdirSync(join(repo, 'snapshots', 'rev1'), { recursive: true });
    mkdirSync(join(repo, 'refs'));
    copyFileSync(join(FIXTURE, 'tokenizer.json'), join(repo, 'snapshots', 'rev1', 'tokenizer.json'));
    copyFileSync(join(FIXTURE, 'tokenizer_config.json'), join(repo, 'snapshots', 'rev1', 'tokenizer_config.json'));
    writeFileSync(join(repo, 'refs', 'main'), 'rev1');
    const tokenizer = loadModelTokenizer('acme/tiny', '--tokenizer', { HF_HUB_CACHE: cache });
    expect(tokenizer.name).toBe('acme/tiny');
    expect(tokenizer.countChat([{ role: 'user', content: 'hello' }])).toBeGreaterThan(3);
  });

  it('a path that does not exist and is no model id is a usage error', () => {
    expect(() => loadModelTokenizer('./nope/tokenizer.json')).toThrow(/does not exist; give a tokenizer\.json, its folder, or a Hugging Face model id/);
  });
});

describe('download from the Hub (local fake)', () => {
  const requests: string[] = [];
  let endpoint = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/acme/tiny/resolve/main/tokenizer.json') {
      res.writeHead(302, { location: '/cdn/0123456789abcdef0123456789abcdef01234567/tokenizer.json' }).end();
    } else if (req.url === '/cdn/0123456789abcdef0123456789abcdef01234567/tokenizer.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-repo-commit': '0123456789abcdef0123456789abcdef01234567' }).end(readFileSync(join(FIXTURE, 'tokenizer.json')));
    } else if (req.url?.startsWith('/acme/gated/')) {
      res.writeHead(401).end('{"error":"Access to model acme/gated is restricted."}');
    } else {
      res.writeHead(404).end('{"error":"Entry not found"}');
    }
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it('fetches tokenizer.json into the cache layout once; later runs load it offline', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hf-cache-'));
    const env = { HF_ENDPOINT: endpoint, HF_HUB_CACHE: cache };
    const tokenizer = await obtainModelTokenizer('acme/tiny', '--tokenizer', env);
    expect(tokenizer.countPrompt('hello there')).toBeGreaterThan(2);
    expect(existsSync(join(cache, 'models--acme--tiny', 'snapshots', '0123456789abcdef0123456789abcdef01234567', 'tokenizer.json'))).toBe(true);
    expect(readFileSync(join(cache, 'models--acme--tiny', 'refs', 'main'), 'utf8')).toBe('0123456789abcdef0123456789abcdef01234567');
    const seen = requests.length;
    await obtainModelTokenizer('acme/tiny', '--tokenizer', env);
    expect(requests.length).toBe(seen);
  });

  it('a gated model without a token is a usage error that says so', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hf-cache-'));
    await expect(obtainModelTokenizer('acme/gated', '--tokenizer', { HF_ENDPOINT: endpoint, HF_HUB_CACHE: cache })).rejects.toThrow(/answered 401 .*needs HF_TOKEN/);
  });
});
