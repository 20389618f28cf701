// The reference a reader opens: the one typedoc site of the four packages and its guides
// (`npm run docs`) and a running server's `/docs`, in headless Chromium. Each main page must
// render its content with no console error and no failed request; every page of the site must
// pass axe with no serious or critical violation and hold no broken link (linkinator);
// screenshots are saved under test-output/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LinkChecker } from 'linkinator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeSource } from '../../../scripts/testing/axe-source.mjs';
import { chromiumAvailable, launchChromium } from '../../../scripts/testing/chromium.mjs';
import { scratchDataDir, startServer } from './index.js';
import { serveSite, stopServing, urlOf } from './static-site.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const screenshots = fileURLToPath(new URL('../test-output/', import.meta.url));
const available = chromiumAvailable();
// The site `npm run docs` built, when the run that started this test built it just before (npm
// test sets it: turbo's docs task writes docs/api/, and this package's test task depends on that
// task). Unset (the test run alone), the test builds the site itself from the sources as they
// are, so that it never checks a site older than them.
const builtSite = process.env.FOLLOWUP_DOCS_SITE ? resolve(process.env.FOLLOWUP_DOCS_SITE) : '';

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

/** The site's pages, as paths from its root (`/index.html`, `/classes/….html`). */
function pagesOf(site) {
  return readdirSync(site, { recursive: true })
    .filter((file) => String(file).endsWith('.html'))
    .map(
      (file) =>
        `/${relative(site, join(site, String(file)))
          .split('\\')
          .join('/')}`,
    )
    .sort();
}

/** The `href`s of the links in the main column of a typedoc page, in order. */
function contentLinks(html) {
  const content = html.slice(html.indexOf('<div class="col-content">'));
  return [...content.matchAll(/<a href="([^"#]+)"/g)].map((match) => match[1]);
}

describe.skipIf(!available)('the reference documentation in a browser', () => {
  let site;
  let siteServer;
  let siteUrl;
  let browser;
  // Whether the site is this test's own build, to remove afterwards.
  let built = false;
  beforeAll(async () => {
    if (builtSite) {
      // npm test: turbo's docs task has just built the site from these sources (this task
      // depends on it), and the test reads that one rather than build it again.
      if (!existsSync(join(builtSite, 'index.html')))
        throw new Error(`FOLLOWUP_DOCS_SITE names ${builtSite}, which holds no built site`);
      site = builtSite;
    } else {
      site = mkdtempSync(join(tmpdir(), 'followup-site-'));
      built = true;
      const build = spawnSync(process.execPath, [join(root, 'scripts/build-docs.mjs'), site], {
        cwd: root,
        encoding: 'utf8',
      });
      if (build.status !== 0)
        throw new Error(`npm run docs failed:\n${build.stdout}\n${build.stderr}`);
    }
    siteServer = await serveSite(site);
    siteUrl = urlOf(siteServer);
    browser = await launchChromium();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    stopServing(siteServer);
    if (built) rmSync(site, { recursive: true, force: true });
  });

  it('builds one site covering the four packages, with the OpenAPI document beside it', () => {
    const modules = readFileSync(join(site, 'modules.html'), 'utf8');
    const order = ['@followup/webhooks', '@followup/sdk', '@followup/server', '@followup/cli'];
    // The packages in the order they build on each other, not alphabetically.
    expect(order.map((name) => modules.indexOf(`>${name}<`))).toEqual(
      order.map((name) => modules.indexOf(`>${name}<`)).sort((a, b) => a - b),
    );
    expect(order.every((name) => modules.includes(`>${name}<`))).toBe(true);
    const openapi = JSON.parse(readFileSync(join(site, 'openapi.json'), 'utf8'));
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toContain('/api/contacts');
  });

  it("links the landing page to each package's entry points and to the guides, titled in words", () => {
    const links = contentLinks(readFileSync(join(site, 'index.html'), 'utf8'));
    expect(links).toEqual(
      expect.arrayContaining([
        'modules/_followup_webhooks.index.html',
        'modules/_followup_webhooks.web.html',
        'modules/_followup_sdk.index.html',
        'classes/_followup_sdk.index.FollowUp.html',
        'modules/_followup_sdk.receiver-checks.html',
        'modules/_followup_server.index.html',
        'modules/_followup_server.testing.html',
        'modules/_followup_cli.html',
        'media/http-api.html',
      ]),
    );
    const guides = {
      'documents/HTTP_API.html': 'HTTP API',
      'documents/API_contract.html': 'API contract',
      'documents/Architecture.html': 'Architecture',
      'documents/Security.html': 'Security',
      'documents/Decisions.html': 'Decisions',
      'documents/Contributing.html': 'Contributing',
    };
    for (const [path, title] of Object.entries(guides)) {
      expect(links).toContain(path);
      const page = readFileSync(join(site, path), 'utf8');
      expect(page, path).toContain(`<title>${title} | FollowUp toolkit</title>`);
    }
    // No guide is named after its file (docs/api-contract, ARCHITECTURE).
    const titles = pagesOf(site)
      .filter((path) => path.startsWith('/documents/'))
      .map((path) => /<title>([^<|]+)/.exec(readFileSync(join(site, path), 'utf8'))?.[1]?.trim());
    expect(titles.filter((title) => /[/_.]|^[A-Z]+$|-/.test(title ?? ''))).toEqual([]);
  });

  it('lists the FollowUp class first in the SDK and the main entry first in each package', () => {
    const sdk = contentLinks(readFileSync(join(site, 'modules/_followup_sdk.index.html'), 'utf8'));
    expect(sdk.find((href) => href.includes('/classes/'))).toBe(
      '../classes/_followup_sdk.index.FollowUp.html',
    );
    expect(sdk.find((href) => href.startsWith('../'))).toBe(
      '../classes/_followup_sdk.index.FollowUp.html',
    );
    const entries = (name) =>
      contentLinks(readFileSync(join(site, `modules/${name}.html`), 'utf8')).filter((href) =>
        new RegExp(`^${name}\\.[a-z-]+\\.html$`).test(href),
      );
    expect(entries('_followup_webhooks')).toEqual([
      '_followup_webhooks.index.html',
      '_followup_webhooks.web.html',
    ]);
    expect(entries('_followup_sdk')[0]).toBe('_followup_sdk.index.html');
    expect(entries('_followup_server')[0]).toBe('_followup_server.index.html');
  });

  it('links to the HTTP API reference, the OpenAPI document in Swagger UI by tag, not raw JSON', async () => {
    const reference = readFileSync(join(site, 'media/http-api.html'), 'utf8');
    // Self-contained: the page loads nothing from elsewhere.
    expect(reference).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
    const { problems, title } = await visit(
      browser,
      `${siteUrl}/media/http-api.html`,
      '.opblock-tag-section',
      'http-api.png',
    );
    expect(problems).toEqual([]);
    expect(title).toBe('FollowUp HTTP API reference');
    const page = await browser.newPage();
    await page.goto(`${siteUrl}/media/http-api.html`);
    await page.waitForSelector('.opblock-tag-section');
    const tags = await page.$$eval('.opblock-tag', (headings) =>
      headings.map((heading) => heading.getAttribute('data-tag')),
    );
    await page.close();
    expect(tags).toEqual([
      'Contacts',
      'Deals',
      'Sequences',
      'Campaigns',
      'Users',
      'Me',
      'Audit',
      'Events',
      'Webhook endpoints',
      'Deliveries',
      'Replays',
      'Inbound webhooks',
      'Health',
    ]);
  });

  it('has no broken link on any page of the site', async () => {
    const pages = pagesOf(site);
    const checker = new LinkChecker();
    // Every page, not only those reachable from the landing page: typedoc's sidebar is built by
    // a script, which a link checker does not run.
    const result = await checker.check({
      path: pages.map((path) => `${siteUrl}${path}`),
      recurse: false,
      concurrency: 8,
      // No outside network here: the site's own pages and files only.
      linksToSkip: async (link) => !link.startsWith(siteUrl),
    });
    const broken = result.links
      .filter((link) => link.state === 'BROKEN')
      .map((link) => `${link.status} ${link.url} (on ${link.parent})`);
    expect(broken).toEqual([]);
    const seen = new Set(result.links.flatMap((link) => [link.url, link.parent]));
    expect(pages.filter((path) => !seen.has(`${siteUrl}${path}`))).toEqual([]);
  }, 600_000);

  // Every page of the site, each with its own content checked. typedoc draws the same chrome
  // around every page: the toolbar (its header), the sidebar's settings and navigation (built by
  // a script from one file, assets/navigation.js, the same for every page) and the footer. Axe
  // checks that chrome once, whole, on the SDK's client class (whose entry the navigation shows
  // as the current one), and every page (that one too) with the chrome excluded: every element
  // of every page is checked, the chrome on one page rather than on each of 568, where it was
  // most of axe's time. On those runs the browser does not fetch what the content does not need:
  // the site is served to them without the navigation's data (an empty list instead: the sidebar
  // is excluded) and the search's (the search box is closed), images and fonts (axe reads an
  // <img>'s alt, not its pixels).
  // The pages' own scripts do run: they change the content axe checks (typedoc's copy buttons
  // and folding sections, the site's custom.js).
  it('passes axe on every page of the site: no serious or critical violation', async () => {
    const pages = pagesOf(site);
    const chromePage = '/classes/_followup_sdk.index.FollowUp.html';
    const chrome = [
      '.tsd-page-toolbar',
      '.col-sidebar .tsd-navigation.settings',
      '.col-sidebar .site-menu',
      'body > footer',
    ];
    const found = [];
    const checked = [];

    /** A browser context whose pages each get axe as they open, before their own scripts. */
    async function axeContext() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      // Once per page, not twice and configured as AxeBuilder's analyze() does on each call.
      await context.addInitScript({ content: axeSource });
      return context;
    }

    /**
     * Loads `path` from the site at `url` in `page` and waits until its content shows, as a
     * reader would see it.
     */
    async function load(page, url, path) {
      await page.goto(`${url}${path}`, { waitUntil: 'domcontentloaded' });
      if (path === '/media/http-api.html') {
        await page.waitForSelector('.opblock-tag-section');
      } else {
        // typedoc hides the page until its scripts show it, once the sidebar is built: the page
        // says when, rather than be asked on every animation frame (a third of a page's load).
        await page.evaluate(
          () =>
            new Promise((resolve) => {
              const shown = () => document.body.style.display !== 'none';
              if (shown()) return resolve();
              const observer = new MutationObserver(() => {
                if (!shown()) return;
                observer.disconnect();
                resolve();
              });
              observer.observe(document.body, { attributes: true, attributeFilter: ['style'] });
            }),
        );
      }
    }

    /**
     * Runs axe on the page loaded, `excluded` left out, and returns what it finds: the rules that
     * can report a serious or critical violation (`rules`), violations only (axe then skips
     * listing the nodes that pass or that it cannot tell: most of its time on a large page).
     * `iframes: false`: the site's pages have no frame, and a page with one is reported.
     */
    async function check(page, path, excluded, rules) {
      const problems = [];
      if (page.frames().length !== 1) problems.push(`${path}: ${page.frames().length - 1} frames`);
      const violations = await page.evaluate(
        async ({ exclude, values }) => {
          const results = await window.axe.run(
            { exclude },
            { runOnly: { type: 'rule', values }, resultTypes: ['violations'], iframes: false },
          );
          return results.violations.map(({ id, impact, nodes }) => ({
            id,
            impact,
            targets: nodes.map((node) => node.target.join(' ')),
          }));
        },
        { exclude: excluded.map((selector) => [selector]), values: rules },
      );
      for (const violation of violations) {
        if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
        problems.push(`${path}: ${violation.id} ${violation.targets.slice(0, 3).join(', ')}`);
      }
      return problems;
    }

    const whole = await axeContext();
    const chromeTab = await whole.newPage();
    await load(chromeTab, siteUrl, chromePage);
    await chromeTab.waitForSelector('#tsd-nav-container a.current', { state: 'attached' });
    // The rules axe runs by default (enabled, not experimental or deprecated) that can report a
    // serious or critical violation. Each rule of axe declares the impact its violations have
    // (finalizeRuleResult gives every node of a rule the rule's impact), so a rule declared minor
    // or moderate (region, heading-order, landmark-*: 26 of 90 in axe 4.14) can fail no page
    // here and is not run. A rule with no declared impact would take its checks' impacts:
    // stop rather than guess.
    const { rules, undeclared } = await chromeTab.evaluate(() => {
      const audit = window.axe._audit;
      const byDefault = audit.rules.filter(
        (rule) =>
          rule.enabled !== false && !rule.tags.some((tag) => audit.tagExclude.includes(tag)),
      );
      return {
        rules: byDefault
          .filter((rule) => rule.impact === 'serious' || rule.impact === 'critical')
          .map((rule) => rule.id),
        undeclared: byDefault.filter((rule) => !rule.impact).map((rule) => rule.id),
      };
    });
    expect(undeclared).toEqual([]);
    expect(rules).toEqual(expect.arrayContaining(['color-contrast', 'image-alt', 'link-name']));
    found.push(...(await check(chromeTab, chromePage, [], rules)));
    // The check can fail: a serious and a critical violation put into the content are reported.
    await chromeTab.evaluate(() => {
      const content = document.querySelector('.col-content');
      content.insertAdjacentHTML(
        'afterbegin',
        '<p id="faint" style="color: #ccc; background: #fff">faint</p><img id="unnamed" src="x.png">',
      );
    });
    expect(await check(chromeTab, chromePage, chrome, rules)).toEqual([
      `${chromePage}: color-contrast #faint`,
      `${chromePage}: image-alt #unnamed`,
    ]);
    await whole.close();

    const queue = [...pages];
    // An empty navigation: typedoc then shows the page at once, not half a second later.
    const contentServer = await serveSite(site, { contentOnly: true });
    try {
      // Two pages at a time: one for each core of the machines the suite runs on.
      await Promise.all(
        Array.from({ length: 2 }, async () => {
          const context = await axeContext();
          const page = await context.newPage();
          for (let path = queue.shift(); path; path = queue.shift()) {
            await load(page, urlOf(contentServer), path);
            found.push(...(await check(page, path, chrome, rules)));
            checked.push(path);
          }
          await context.close();
        }),
      );
    } finally {
      stopServing(contentServer);
    }
    expect(found).toEqual([]);
    // Every .html page of the site, each once.
    expect(checked.sort()).toEqual(pages);
    expect(pages.length).toBeGreaterThan(500);
  }, 1_800_000);

  it.each([
    ['the home page', '/index.html', 'home.png'],
    ['the module list', '/modules.html', 'modules.png'],
    ['the SDK client class', '/classes/_followup_sdk.index.FollowUp.html', 'sdk-followup.png'],
    ['the API contract', '/documents/API_contract.html', 'api-contract.png'],
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
