import { defineConfig } from 'vitest/config';

// The tests of the repository's own scripts (npm test runs them as the root task test:scripts).
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.test.mjs'],
    // A guard against a hung test, not a measure of speed: the changeset dry run copies the
    // manifests and runs `changeset version`, which takes well over vitest's default 5 s on a
    // loaded machine.
    testTimeout: 120_000,
    reporters: [
      'default',
      ['json', { outputFile: new URL('../test-results.scripts.json', import.meta.url).pathname }],
    ],
  },
});
