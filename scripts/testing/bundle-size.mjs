// Shared by the packages' size-budget tests: how many bytes an application ships for what it
// imports from a built package, bundled and minified by esbuild (tree-shaken, dependencies
// included), raw and gzipped.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Bundles `source` (an ES module importing from the packages, resolved from `resolveDir`) for
 * `platform`, minified, and measures it.
 */
export async function bundleSize({ source, resolveDir, platform, external = [] }) {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform,
    external,
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  return { minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
}
