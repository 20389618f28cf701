import { defineConfig } from 'vitest/config';

// The tests of the repository's own scripts (npm test runs them as the root task test:scripts).
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.test.mjs'],
    reporters: [
      'default',
      ['json', { outputFile: new URL('../test-results.json', import.meta.url).pathname }],
    ],
  },
});
