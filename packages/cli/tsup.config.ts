import { defineConfig } from 'tsup';

// ESM only: the command runs on Node (22 or newer) and its library part, verifyReceiver, is for
// Node test suites and CI jobs; a CommonJS twin would only double what can go wrong. `main` is
// the command's entry, which bin/followup.js loads; only `index` is typed for users.
export default defineConfig({
  entry: { index: 'src/index.ts', main: 'src/main.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
  treeshake: true,
});
