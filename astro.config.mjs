// The site only reads compiled data (SERVEBENCH_DATA, default build/data); it never imports the harness.
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@astrojs/react';
import { defineConfig } from 'astro/config';

const dataDir = resolve(process.env.SERVEBENCH_DATA ?? 'build/data');

/** Publishes the downloads and the browser's data next to the pages (copied, never transformed). */
function publishData() {
  return {
    name: 'servebench-data',
    hooks: {
      'astro:build:done': ({ dir }) => {
        const out = join(fileURLToPath(dir), 'data');
        mkdirSync(out, { recursive: true });
        cpSync('docs/result.schema.json', join(out, 'result.schema.json'));
        if (!existsSync(join(dataDir, 'MANIFEST.json'))) return;
        for (const file of ['MANIFEST.json', 'dictionary.json', 'DICTIONARY.md', 'site/releases.arrow', 'site/points', 'parquet/latest']) {
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

export default defineConfig({
  srcDir: './site',
  publicDir: './site/public',
  outDir: process.env.SERVEBENCH_SITE_OUT ?? './dist/site',
  output: 'static',
  // React renders the islands that need client-side state (the compare page); the rest is static.
  integrations: [react(), publishData()],
});
