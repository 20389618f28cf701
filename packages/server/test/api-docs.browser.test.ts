import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserServer,
  browserAvailable,
  saveScreenshot,
  startBrowserServer,
  useBrowser,
} from './support/browser.js';

// /docs under its Content-Security-Policy in headless Chromium: the policy is strict (no inline
// script, never framed), and Swagger UI must still work under it.
describe.skipIf(!browserAvailable)('the API reference in Chromium', { timeout: 120_000 }, () => {
  const browser = useBrowser();
  let server: BrowserServer;

  beforeAll(async () => {
    server = await startBrowserServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function newPage(): Promise<{ page: Page; violations: string[] }> {
    const page = await (await browser().newContext()).newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    return { page, violations };
  }

  it('renders every operation with no CSP violation, and refuses to be framed', async () => {
    const { page, violations } = await newPage();
    await page.goto(`${server.origin}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await saveScreenshot(page, 'api-docs');
    expect(violations).toEqual([]);

    // Another site puts /docs in a frame: the browser leaves the frame empty.
    const framing = await newPage();
    await framing.page.setContent(`<iframe id="docs" src="${server.origin}/docs"></iframe>`);
    await expect
      .poll(() => framing.violations.some((text) => text.includes('frame-ancestors')), {
        timeout: 30_000,
      })
      .toBe(true);
    const rendered = await Promise.all(
      framing.page.frames().map((frame) =>
        frame
          .locator('.opblock')
          .count()
          .catch(() => 0),
      ),
    );
    expect(rendered.every((count) => count === 0)).toBe(true);
  });

  it("shows FollowUp's name and logo, the operations by tag with no default group", async () => {
    const { page, violations } = await newPage();
    await page.goto(`${server.origin}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.title()).toBe('FollowUp API reference');
    const logo = page.locator('#swagger-ui .topbar-wrapper img');
    await expect.poll(() => logo.getAttribute('alt')).toBe('FollowUp');
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    const tags = await page.locator('.opblock-tag-section .opblock-tag').allInnerTexts();
    const names = tags.map((text) => text.split('\n')[0]?.trim());
    expect(names.slice(0, 3)).toEqual(['Contacts', 'Deals', 'Sequences']);
    expect(names).toContain('Webhook endpoints');
    expect(names).toContain('Inbound webhooks');
    expect(names.at(-1)).toBe('Health');
    expect(names).not.toContain('default');
    expect(violations).toEqual([]);
  });
});
