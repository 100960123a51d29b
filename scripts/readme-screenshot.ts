/**
 * The README's screenshot: the home page of the site built from results/ (`npm run build` first),
 * at 1280 × 900 in Debian's Chromium, written to docs/images/home.png. Real data only: never the
 * tests' synthetic fixture.
 *
 *   npm run build && npm run docs:screenshot
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.ts';

const SITE = fileURLToPath(new URL('../dist/site', import.meta.url));
const OUT = fileURLToPath(new URL('../docs/images/home.png', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(`${SITE}/index.html`)) throw new Error(`${SITE} has no site: run \`npm run build\` first`);
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
const server = await serveStatic(SITE);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  await page.goto(`${server.url}/`);
  mkdirSync(fileURLToPath(new URL('../docs/images', import.meta.url)), { recursive: true });
  await page.screenshot({ path: OUT, fullPage: false });
  process.stdout.write(`wrote ${OUT}\n`);
} finally {
  await browser.close();
  await server.close();
}
