import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.js'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
