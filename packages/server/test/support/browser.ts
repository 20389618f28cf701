// The browser harness of the web application's tests: a real server on a random loopback port,
// Debian's headless Chromium through playwright-core, users of any role signed in through the
// /signin form, axe-core checks and screenshots. Web pages' browser tests all use it.

import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { axeSource } from '../../../../scripts/testing/axe-source.mjs';
import { chromiumAvailable, launchChromium } from '../../../../scripts/testing/chromium.mjs';
import { buildServer } from '../../src/build-server.js';
import type { BuildServerOptions } from '../../src/build-server-options.js';
import { createIdGenerator } from '../../src/ids.js';
import type { Database } from '../../src/storage/database.js';
import type { Role } from '../../src/tokens/role.js';
import { type ManualClock, manualClock } from './clock.js';
import { openTestDatabase } from './database.js';
import { testPasswordHash } from './password-hash.js';

/** Whether Chromium is here (in CI it must be: `chromiumAvailable` throws there otherwise). */
export const browserAvailable = chromiumAvailable();

/** Where screenshots go: the package's test output folder (gitignored). */
export const SCREENSHOT_DIR = new URL('../../test-output/screenshots/', import.meta.url).pathname;

/** A server listening on a random loopback port, with its own database. */
export interface BrowserServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  app: FastifyInstance;
  database: Database;
  clock: ManualClock;
  /** Stops the server and closes its database. */
  close(): Promise<void>;
}

/** Starts a server for browser tests: `configure` may add routes before it is ready. */
export async function startBrowserServer(
  options: Partial<Omit<BuildServerOptions, 'database' | 'clock'>> & {
    configure?: (app: FastifyInstance, server: { database: Database; clock: ManualClock }) => void;
  } = {},
): Promise<BrowserServer> {
  const { configure, ...rest } = options;
  const database = await openTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const app = buildServer({ database, clock, newId, logger: false, ...rest });
  configure?.(app, { database, clock });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    app,
    database,
    clock,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/**
 * One headless Chromium for a test file, launched before its tests and closed after; the
 * contexts (and so the pages) a test opens are closed when it ends.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (browserAvailable) browser = await launchChromium();
  });
  // A context holds connections to the server under test, and one of them may never carry a
  // request (Chromium opens it ahead of need): the server's close() waits for such a connection
  // until its idle timeout, 60 s, and a file's afterAll closes its server before this browser.
  // Closing the contexts after each test ends their connections before any afterAll runs.
  afterEach(async () => {
    await Promise.all(browser?.contexts().map((context) => context.close()) ?? []);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('No browser: skip the test when browserAvailable is false.');
    return browser;
  };
}

/** A user with a password, made directly in the database (as an accepted invite would). */
export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
}

let users = 0;

/** Creates a user of a role with a known password. */
export async function createTestUser(
  server: Pick<BrowserServer, 'database' | 'clock'>,
  role: Role,
  options: { email?: string; name?: string; password?: string } = {},
): Promise<TestUser> {
  users += 1;
  const id = createIdGenerator({ now: () => server.clock.now() })('usr');
  const email = options.email ?? `browser-${users}-${role.toLowerCase()}@example.com`;
  const password = options.password ?? 'a long browser password';
  await server.database.query(
    `INSERT INTO users (id, email, name, role, created_at, password_hash)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      id,
      email,
      options.name ?? `Browser ${role}`,
      role,
      new Date(server.clock.now()),
      await testPasswordHash(password),
    ],
  );
  return { id, email, password, role };
}

/**
 * Signs a user in through the /signin form in `page` (a new user of `role` when a role is
 * given), and waits for the page after sign-in.
 */
export async function signIn(
  page: Page,
  server: BrowserServer,
  who: Role | TestUser,
): Promise<TestUser> {
  const user = typeof who === 'string' ? await createTestUser(server, who) : who;
  await page.goto(`${server.origin}/signin`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/signin'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return user;
}

/** The session cookie's value in a browser context, if any. */
export async function sessionCookie(
  context: BrowserContext,
  origin: string,
): Promise<string | undefined> {
  const cookies = await context.cookies(origin);
  return cookies.find((cookie) => /followup_session$/.test(cookie.name))?.value;
}

// Runs axe over the whole document and answers its violations by rule: a function's source, as
// it runs in the page, where the DOM's types are. `resultTypes` leaves out the details of every
// passing and inapplicable node, which nothing here reads: axe still runs every rule on every
// node, and reports every violation in full.
const runAxe = `(async () => {
  const results = await window.axe.run(document, { resultTypes: ['violations'] });
  return results.violations.map(({ id, impact, nodes }) => ({
    id,
    impact: impact ?? '',
    nodes: nodes.map((node) => node.target.join(' ')),
  }));
})()`;

/** A violation as `seriousViolations` reports it: the rule, its impact and each node's selector. */
export interface SeriousViolation {
  id: string;
  impact: string;
  nodes: string[];
}

/**
 * The serious and critical axe-core violations of the page as it is now (expect `[]`): every
 * rule axe-core runs by default, over the whole page (its frames included).
 */
export async function seriousViolations(page: Page): Promise<SeriousViolation[]> {
  // axe is evaluated in a document once, the first time the document is checked, as
  // page.evaluate does (through the DevTools protocol, so the pages' Content-Security-Policy
  // does not apply). An init script would evaluate it on every page load, checked or not.
  for (const frame of page.frames()) {
    if (!(await frame.evaluate<boolean>("'axe' in window"))) await frame.evaluate(axeSource);
  }
  const violations = await page.evaluate<SeriousViolation[]>(runAxe);
  return violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
}

/** Saves a full-page screenshot as `<SCREENSHOT_DIR>/<name>.png`; answers the path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * The brightest pixel (0-255, the mean of red, green and blue) in each outermost column of
 * pixels of the element `selector`, as the screen shows it: where the web app's scroll shadow
 * lies along an edge, every pixel of that column is darkened, so its brightest is well under
 * 255; without it the column shows the white page somewhere.
 */
export async function edgeBrightness(
  page: Page,
  selector: string,
): Promise<{ left: number; right: number }> {
  // The screen cut to the element's box (an element screenshot of a scroll region drew it
  // without its scroll shadows in Chromium).
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not on the page.`);
  const shot = await page.screenshot({
    clip: {
      x: Math.ceil(box.x),
      y: Math.ceil(box.y),
      width: Math.floor(box.width) - 1,
      height: Math.floor(box.height) - 1,
    },
  });
  const png = PNG.sync.read(shot);
  const brightest = (x: number) => {
    let most = 0;
    for (let y = 0; y < png.height; y++) {
      const at = (y * png.width + x) * 4;
      const value = ((png.data[at] ?? 0) + (png.data[at + 1] ?? 0) + (png.data[at + 2] ?? 0)) / 3;
      most = Math.max(most, value);
    }
    return most;
  };
  return { left: brightest(0), right: brightest(png.width - 1) };
}
