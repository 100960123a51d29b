// The site only reads compiled data (SERVEBENCH_DATA, default build/data); it never imports the harness.
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { satteri } from '@astrojs/markdown-satteri';
import react from '@astrojs/react';
import { defineConfig } from 'astro/config';
import { formatReport, precompress } from './scripts/precompress.ts';
import { contentType } from './scripts/static-server.ts';
import { scrollableTables } from './site/lib/markdown-scrollable-tables.ts';

const dataDir = resolve(process.env.SERVEBENCH_DATA ?? 'build/data');

const PUBLISHED = ['MANIFEST.json', 'dictionary.json', 'DICTIONARY.md', 'llmd', 'site/releases.arrow', 'site/releases', 'site/points', 'parquet/latest'];

/**
 * Publishes the downloads and the browser's data next to the pages (copied, never transformed);
 * the dev server serves the same files from the compiled data at the same URLs.
 */
function publishData() {
  let base = '/';
  return {
    name: 'servebench-data',
    hooks: {
      'astro:config:done': ({ config }) => {
        base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      },
      'astro:server:setup': ({ server }) => {
        server.middlewares.use(`${base}data`, (req, res, next) => {
          let path;
          try {
            path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
          } catch {
            return next();
          }
          const published = path === 'result.schema.json' || PUBLISHED.some((p) => path === p || path.startsWith(`${p}/`)) || path.startsWith('parquet/snapshots/');
          const file = path === 'result.schema.json' ? resolve('docs/result.schema.json') : resolve(dataDir, path);
          if (!published || (file !== resolve('docs/result.schema.json') && !file.startsWith(dataDir + sep)) || !existsSync(file) || !statSync(file).isFile()) return next();
          res.setHeader('content-type', contentType(file));
          createReadStream(file).pipe(res);
        });
      },
      'astro:build:done': ({ dir }) => {
        const out = join(fileURLToPath(dir), 'data');
        mkdirSync(out, { recursive: true });
        cpSync('docs/result.schema.json', join(out, 'result.schema.json'));
        if (!existsSync(join(dataDir, 'MANIFEST.json'))) return;
        for (const file of PUBLISHED) {
          if (existsSync(join(dataDir, file))) cpSync(join(dataDir, file), join(out, file), { recursive: true });
        }
        // The dated snapshot the latest files were copied from (older ones stay in the data store).
        const { snapshot } = JSON.parse(readFileSync(join(dataDir, 'MANIFEST.json'), 'utf8'));
        const snapshotDir = join('parquet', 'snapshots', snapshot);
        if (existsSync(join(dataDir, snapshotDir))) cpSync(join(dataDir, snapshotDir), join(out, snapshotDir), { recursive: true });
      },
    },
  };
}

/**
 * After the data is published: `<file>.gz` and `<file>.br` next to the site's files, for servers
 * that send precompressed files (scripts/static-server.ts). SERVEBENCH_PRECOMPRESS=0 skips it.
 */
function precompressSite() {
  return {
    name: 'servebench-precompress',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        if (process.env.SERVEBENCH_PRECOMPRESS === '0') return;
        logger.info(formatReport(await precompress(fileURLToPath(dir))));
      },
    },
  };
}

export default defineConfig({
  srcDir: './site',
  publicDir: './site/public',
  outDir: process.env.SERVEBENCH_SITE_OUT ?? './dist/site',
  output: 'static',
  // React renders the islands that need client-side state (the compare page); the rest is static.
  integrations: [react(), publishData(), precompressSite()],
  markdown: { processor: satteri({ hastPlugins: [scrollableTables] }) },
});
