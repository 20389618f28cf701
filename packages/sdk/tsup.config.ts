import { defineConfig } from 'tsup';

const shared = {
  entry: { index: 'src/index.ts' },
  dts: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
} as const;

export default defineConfig([
  // ESM: every dependency stays external, so an application shares one copy of ky and zod.
  { ...shared, format: ['esm'], clean: false },
  // CommonJS: ky ships ESM only, and `require()` of ESM needs Node 22.12 or later, so ky is
  // bundled into the CommonJS build to keep `require('@followup/sdk')` working on every Node 22.
  { ...shared, format: ['cjs'], clean: false, noExternal: ['ky'] },
]);
