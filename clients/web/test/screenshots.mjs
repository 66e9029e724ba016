// Where the tests' screenshots go: always `$WEB_TEST_OUT` (default test/out/, not committed);
// with UPDATE_SCREENSHOTS=1 also `clients/web/screenshots/<name>.png`, the pictures the README
// shows (so they are refreshed by running the tests, never drawn by hand).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const outDir = process.env.WEB_TEST_OUT || path.join(here, 'out');
export const docsDir = path.join(here, '..', 'screenshots');

/** Saves the page's viewport as `<name>.png` (see above for where). */
export async function saveScreenshot(page, name) {
  mkdirSync(outDir, { recursive: true });
  await page.screenshot(path.join(outDir, `${name}.png`));
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(docsDir, { recursive: true });
    await page.screenshot(path.join(docsDir, `${name}.png`));
  }
}
