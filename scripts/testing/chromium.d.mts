import type { Browser } from 'playwright-core';

/** The Chromium binary: CHROMIUM_PATH, or Debian's. */
export declare const chromiumPath: string;
/** Whether Chromium is installed; throws in CI when it is not. */
export declare function chromiumAvailable(): boolean;
/** Launches headless Chromium with the flags that keep it off the (closed) network. */
export declare function launchChromium(): Promise<Browser>;
