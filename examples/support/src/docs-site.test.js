// The reference a reader opens: the one typedoc site of the three packages (`npm run docs`) and a
// running server's `/docs`, in headless Chromium. Each main page must render its content with no
// console error and no failed request; screenshots are saved under test-output/.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../../scripts/testing/chromium.mjs';
import { scratchDataDir, startServer } from './index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const screenshots = fileURLToPath(new URL('../test-output/', import.meta.url));
const available = chromiumAvailable();
const types = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** Opens `url`, waits for `selector`, and returns the console errors and failed requests seen. */
async function visit(browser, url, selector, screenshot) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector(selector, { timeout: 30_000 });
  const title = await page.title();
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, screenshot), fullPage: false });
  await page.close();
  return { problems, title };
}

describe.skipIf(!available)('the reference documentation in a browser', () => {
  let site;
  let siteServer;
  let siteUrl;
  let browser;
  beforeAll(async () => {
    site = mkdtempSync(join(tmpdir(), 'followup-site-'));
    const build = spawnSync(process.execPath, [join(root, 'scripts/build-docs.mjs'), site], {
      cwd: root,
      encoding: 'utf8',
    });
    if (build.status !== 0)
      throw new Error(`npm run docs failed:\n${build.stdout}\n${build.stderr}`);
    siteServer = createServer((request, response) => {
      // A hosted site would have one; without it the browser's own request is a 404 to ignore.
      if (request.url === '/favicon.ico') return void response.writeHead(204).end();
      const path = normalize(decodeURIComponent(new URL(request.url, 'http://site').pathname));
      const file = join(site, path.endsWith('/') ? `${path}index.html` : path);
      if (!file.startsWith(site) || !existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200, {
        'content-type': types[extname(file)] ?? 'application/octet-stream',
      });
      response.end(readFileSync(file));
    }).listen(0, '127.0.0.1');
    await once(siteServer, 'listening');
    siteUrl = `http://127.0.0.1:${siteServer.address().port}`;
    browser = await launchChromium();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    siteServer?.closeAllConnections();
    siteServer?.close();
    if (site) rmSync(site, { recursive: true, force: true });
  });

  it('builds one site covering the three packages, with the OpenAPI document beside it', () => {
    const modules = readFileSync(join(site, 'modules.html'), 'utf8');
    for (const name of ['@followup/webhooks', '@followup/sdk', '@followup/server']) {
      expect(modules).toContain(name);
    }
    const openapi = JSON.parse(readFileSync(join(site, 'openapi.json'), 'utf8'));
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toContain('/api/contacts');
  });

  it.each([
    ['the home page', '/index.html', 'home.png'],
    ['the module list', '/modules.html', 'modules.png'],
    ['the SDK client class', '/classes/_followup_sdk.index.FollowUp.html', 'sdk-followup.png'],
    ['the API contract', '/documents/docs_api-contract.html', 'api-contract.png'],
  ])('renders %s without a console error', async (_name, path, screenshot) => {
    expect(existsSync(join(site, path)), `${path} is missing from the site`).toBe(true);
    const { problems, title } = await visit(
      browser,
      `${siteUrl}${path}`,
      '.col-content',
      screenshot,
    );
    expect(problems).toEqual([]);
    expect(title).not.toBe('');
  });

  it("renders a running server's /docs without a console error", async () => {
    const scratch = scratchDataDir('docs-site');
    const server = await startServer(scratch.storage);
    try {
      const { problems } = await visit(
        browser,
        `${server.url}/docs`,
        '.opblock',
        'server-docs.png',
      );
      expect(problems).toEqual([]);
    } finally {
      await server.stop();
      scratch.remove();
    }
  });
});
