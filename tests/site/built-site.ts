/**
 * What the browser tests share: building the site with astro into a folder of their own, and
 * Debian's Chromium through playwright-core. The browser test files run one at a time (their own
 * vitest project): two astro builds of one checkout at once collide in its prerender folder.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { serveStatic } from '../../scripts/static-server.ts';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** `astro build` with SERVEBENCH_DATA, SERVEBENCH_SITE_OUT and the like in `env`, and `args` (e.g. `--site <url>`). */
export function buildSite(env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(REPO, 'node_modules/astro/bin/astro.mjs'), 'build', ...args], { cwd: REPO, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env }, timeout: 180_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`astro build failed: ${stderr}`)) : resolve(),
    );
  });
}

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}

export type ServedSite = Awaited<ReturnType<typeof serveStatic>>;

/**
 * The browser tests' start: the site built from compiled `data` into `siteOut`, served on
 * 127.0.0.1, and Chromium; close() stops both (whichever started). With `atOwnUrl`, the server
 * starts first and the site is built with its URL as astro's `site`, as the nightly builds it
 * with its public one: the pages' absolute URLs (the downloads' examples) then point at this server.
 */
export async function openBuiltSite(data: string, siteOut: string, env: NodeJS.ProcessEnv = {}, options: { atOwnUrl?: boolean } = {}): Promise<{ site: ServedSite; browser: Browser; close(): Promise<void> }> {
  let site: ServedSite | undefined;
  if (options.atOwnUrl) site = await serveStatic(siteOut);
  try {
    await buildSite({ SERVEBENCH_DATA: data, SERVEBENCH_SITE_OUT: siteOut, ...env }, site === undefined ? [] : ['--site', site.url]);
  } catch (error) {
    await site?.close();
    throw error;
  }
  const served = site ?? (await serveStatic(siteOut));
  try {
    const browser = await launchChromium();
    return { site: served, browser, close: async () => (await browser.close(), await served.close()) };
  } catch (error) {
    await served.close();
    throw error;
  }
}
