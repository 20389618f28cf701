import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', web: 'src/web.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['node:crypto'],
  treeshake: true,
  // Deno and Bun need the node: prefix; keep it as written.
  removeNodeProtocol: false,
});
