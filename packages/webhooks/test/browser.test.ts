import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../../scripts/testing/chromium.mjs';

// The /web entry in a real browser (Debian's Chromium, driven by playwright-core), where there is
// no Node at all: it must load, and pass every known-answer vector there too. CI installs
// Chromium (.ci/run); elsewhere the test is skipped when no Chromium is found.
const available = chromiumAvailable();

const packageRoot = new URL('..', import.meta.url).pathname;
const types: Record<string, string> = {
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.html': 'text/html',
};

describe.skipIf(!available)('the /web entry in headless Chromium', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url === '/' ? '/test/browser.html' : (request.url ?? '/');
      const file = normalize(join(packageRoot, decodeURIComponent(path.split('?')[0] as string)));
      const allowed =
        ['dist/', 'vectors/'].some((folder) => file.startsWith(join(packageRoot, folder))) ||
        ['test/browser-runner.js', 'test/vector-runner.js'].some(
          (name) => file === join(packageRoot, name),
        );
      if (path === '/test/browser.html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          '<!doctype html><title>@followup/webhooks/web</title><script type="module" src="/test/browser-runner.js"></script>',
        );
        return;
      }
      if (!allowed || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, {
        'content-type': types[extname(file)] ?? 'application/octet-stream',
      });
      response.end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('loads without Node and passes every known-answer vector', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => 'vectorResult' in window);
    const result = await page.evaluate(
      () =>
        (
          window as unknown as {
            vectorResult: Promise<{
              failures: string[];
              counted: number;
              standard: number;
              hasNode: boolean;
            }>;
          }
        ).vectorResult,
    );
    expect(errors).toEqual([]);
    expect(result.hasNode).toBe(false);
    expect(result.failures).toEqual([]);
    expect(result.counted).toBeGreaterThan(50);
    expect(result.standard).toBeGreaterThanOrEqual(29);
  }, 60_000);
});
