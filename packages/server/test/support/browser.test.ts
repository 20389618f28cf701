// The browser harness's axe check (test/support/browser.ts) on pages made for it: it must
// report what axe finds serious or critical, and only that, on every document a page loads,
// under a Content-Security-Policy as strict as the console's. The pages are answered by a
// Playwright route, so no server or database is involved.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, seriousViolations, useBrowser } from './browser.js';

const ORIGIN = 'http://axe-check.test';

/** A whole page: a language, a title, a main landmark and `body` in it. */
function html(body: string): string {
  return `<!doctype html><html lang="en"><head><title>Axe check</title></head>
<body><main><h1>Axe check</h1>${body}</main></body></html>`;
}

const pages: Record<string, string> = {
  // Grey #bbb on white is 1.9:1, under the 4.5:1 of color-contrast (serious); an <img> with no
  // alt text and no role is image-alt (critical).
  '/bad': html(
    '<p id="faint" style="color: #bbb; background: #fff">Faint text</p><img id="photo" src="/photo.png">',
  ),
  '/good': html('<p>Plain text</p><img src="/photo.png" alt="A photo">'),
  // Text outside every landmark (region) and a heading level skipped (heading-order) are
  // moderate: reported by axe, not by the check.
  '/moderate': `<!doctype html><html lang="en"><head><title>Axe check</title></head>
<body><p>Outside every landmark</p><main><h1>Axe check</h1><h4>Skipped levels</h4></main></body></html>`,
};

/** A page whose requests to ORIGIN get `pages`, with a policy that lets no script of theirs run. */
async function routedPage(browser: ReturnType<ReturnType<typeof useBrowser>>): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.route(`${ORIGIN}/**`, (route) => {
    const body = pages[new URL(route.request().url()).pathname];
    return body === undefined
      ? route.fulfill({ status: 404, body: '' })
      : route.fulfill({
          contentType: 'text/html',
          headers: { 'content-security-policy': "script-src 'none'" },
          body,
        });
  });
  return page;
}

describe.skipIf(!browserAvailable)('seriousViolations', { timeout: 120_000 }, () => {
  const browser = useBrowser();

  it('reports low-contrast text (serious) and an image without alt (critical), by selector', async () => {
    const page = await routedPage(browser());
    await page.goto(`${ORIGIN}/bad`);
    const found = await seriousViolations(page);
    expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'color-contrast', impact: 'serious', nodes: ['#faint'] },
      { id: 'image-alt', impact: 'critical', nodes: ['#photo'] },
    ]);
  });

  it('leaves out moderate and minor violations', async () => {
    const page = await routedPage(browser());
    await page.goto(`${ORIGIN}/moderate`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('checks each document the page loads, as it is when checked', async () => {
    const page = await routedPage(browser());
    await page.goto(`${ORIGIN}/good`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${ORIGIN}/bad`);
    expect((await seriousViolations(page)).map((violation) => violation.id).sort()).toEqual([
      'color-contrast',
      'image-alt',
    ]);
    // The same document, changed after its first check: checked again as it is now.
    await page
      .locator('#faint')
      .evaluate((element) => element.setAttribute('style', 'color: #000'));
    await page.locator('#photo').evaluate((element) => element.setAttribute('alt', 'A photo'));
    expect(await seriousViolations(page)).toEqual([]);
  });
});
