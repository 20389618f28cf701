import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../../scripts/testing/chromium.mjs';

// The built SDK in a real browser (Debian's Chromium, driven by playwright-core): ESM through an
// import map, no bundler, no Node. One origin serves the page, the modules and a small API. CI
// installs Chromium (.ci/run); elsewhere the test is skipped when no Chromium is found.
const available = chromiumAvailable();

const repository = new URL('../../../', import.meta.url).pathname;
const served = [
  'node_modules/zod/',
  'node_modules/ky/distribution/',
  'packages/sdk/dist/',
  'packages/webhooks/dist/',
];
const importMap = {
  imports: {
    zod: '/node_modules/zod/index.js',
    ky: '/node_modules/ky/distribution/index.js',
    '@followup/webhooks/web': '/packages/webhooks/dist/web.js',
  },
};
const page = `<!doctype html><title>@followup/sdk</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<script type="module">
  import { FollowUp, NotFoundError, APIUserAbortError } from '/packages/sdk/dist/index.js';
  window.sdkResult = (async () => {
    const client = new FollowUp({ token: 'hns_sa_browser.c2VjcmV0LXNlY3JldC1zZWNyZXQ', baseUrl: location.origin, maxRetries: 0 });
    const ids = [];
    for await (const contact of client.contacts.list({ limit: 2 })) ids.push(contact.id);
    const missing = await client.contacts.get('con_missing').catch((error) => error);
    const controller = new AbortController();
    const pending = client.contacts.get('con_hang', { signal: controller.signal }).catch((error) => error);
    controller.abort();
    const aborted = await pending;
    return {
      ids,
      notFound: NotFoundError.isInstance(missing),
      code: missing.code,
      aborted: APIUserAbortError.isInstance(aborted),
      tokenInJson: JSON.stringify(client).includes('c2VjcmV0'),
      hasNode: typeof globalThis.process !== 'undefined',
    };
  })();
</script>`;

const contacts = ['a', 'b', 'c'].map((letter) => ({
  id: `con_${letter}`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'LEAD',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}));

describe.skipIf(!available)('the built SDK in headless Chromium', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const authorizations: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname === '/') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(page);
        return;
      }
      if (url.pathname.startsWith('/api/')) {
        authorizations.push(request.headers.authorization ?? '');
        if (url.pathname === '/api/contacts') {
          const offset = Number(url.searchParams.get('offset') ?? 0);
          const limit = Number(url.searchParams.get('limit') ?? 50);
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ contacts: contacts.slice(offset, offset + limit) }));
        } else if (url.pathname === '/api/contacts/con_hang') {
          // never answers: the page aborts it
        } else {
          response.writeHead(404, { 'content-type': 'application/problem+json' });
          response.end(JSON.stringify({ status: 404, title: 'Not Found', code: 'not_found' }));
        }
        return;
      }
      const file = normalize(join(repository, decodeURIComponent(url.pathname)));
      if (
        !served.some((folder) => file.startsWith(join(repository, folder))) ||
        !existsSync(file)
      ) {
        response.writeHead(404).end();
        return;
      }
      const type = extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream';
      response.writeHead(200, { 'content-type': type });
      response.end(readFileSync(realpathSync(file)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('walks pages, maps errors, aborts, and keeps the token out of JSON', async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(origin);
    await tab.waitForFunction(() => 'sdkResult' in window);
    const result = await tab.evaluate(
      () => (window as unknown as { sdkResult: unknown }).sdkResult,
    );
    expect(errors).toEqual([]);
    expect(result).toEqual({
      ids: ['con_a', 'con_b', 'con_c'],
      notFound: true,
      code: 'not_found',
      aborted: true,
      tokenInJson: false,
      hasNode: false,
    });
    expect(authorizations.length).toBeGreaterThanOrEqual(3);
    for (const header of authorizations) {
      expect(header).toBe('Bearer hns_sa_browser.c2VjcmV0LXNlY3JldC1zZWNyZXQ');
    }
  }, 60_000);
});
