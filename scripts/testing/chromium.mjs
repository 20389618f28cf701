// Shared by the packages' browser tests: where Debian's Chromium is, whether a test may skip
// when it is missing (never in CI), and how to launch it headless with playwright-core on a
// machine without outside network.
import { existsSync } from 'node:fs';

/** The Chromium binary: CHROMIUM_PATH, or Debian's. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether Chromium is installed. In CI a missing Chromium is an error rather than a skip, so
 * that the browser tests can never silently stop running.
 */
export function chromiumAvailable() {
  const available = existsSync(chromiumPath);
  if (!available && process.env.CI) {
    throw new Error(`CI must run the browser tests, but there is no Chromium at ${chromiumPath}`);
  }
  return available;
}

/**
 * Launches headless Chromium with the flags that keep it off the (closed) network. playwright-core
 * is loaded here, not when this module is: the vitest configs import `chromiumAvailable` to say
 * whether the browser tests run (not-run-reporter.mjs), and need no browser driver for that.
 */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
