/** How many bytes an application ships for an import, minified and gzipped. */
export declare function bundleSize(options: {
  /** An ES module importing from the packages, e.g. `export { FollowUp } from '@followup/sdk';`. */
  source: string;
  /** Where its imports are resolved from. */
  resolveDir: string;
  /** `browser` or `neutral` for Web code, `node` for code that uses `node:` modules. */
  platform: 'browser' | 'node' | 'neutral';
  /** Imports left out of the bundle. */
  external?: string[];
}): Promise<{ minified: number; gzipped: number }>;
