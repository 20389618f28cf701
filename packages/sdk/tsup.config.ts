import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const shared = {
  // receiver-checks: a subpath of its own (@followup/sdk/receiver-checks), so that the client's
  // bundle carries none of it.
  entry: { index: 'src/index.ts', 'receiver-checks': 'src/receiver-checks/index.ts' },
  dts: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
  // The version the X-FollowUp-Client header reports.
  define: { __FOLLOWUP_SDK_VERSION__: JSON.stringify(version) },
} as const;

export default defineConfig([
  // Every dependency stays external, so an application shares one copy of zod.
  { ...shared, format: ['esm'], clean: false },
  { ...shared, format: ['cjs'], clean: false },
]);
