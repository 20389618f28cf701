// axe-core's source for the browser tests to evaluate in a page: the server's pages
// (packages/server/test/support/browser.ts) and the docs site's (examples/support).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// axe-core as @axe-core/playwright itself depends on it (the version that package was tested
// with), minified: the unminified axe.js (1.48 MB) took most of a check's time to evaluate
// (758 ms against 225 ms on a 50-row table page, when AxeBuilder evaluated it twice a check).
const axeRequire = createRequire(import.meta.resolve('@axe-core/playwright'));

/** axe-core's minified source (`axe.min.js`): evaluated in a page, it defines `window.axe`. */
export const axeSource = readFileSync(
  join(dirname(axeRequire.resolve('axe-core/package.json')), 'axe.min.js'),
  'utf8',
);
