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
  // Every dependency stays external, so an application shares one copy of zod.
  { ...shared, format: ['esm'], clean: false },
  { ...shared, format: ['cjs'], clean: false },
]);
