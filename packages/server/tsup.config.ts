import { defineConfig } from 'tsup';

// ESM only: the server is an application and a Node library (Fastify, pg, PGlite), never bundled
// for a browser, so a CommonJS twin would only double what can go wrong.
export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing.ts', cli: 'src/cli.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', testing: 'src/testing.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
  treeshake: true,
});
