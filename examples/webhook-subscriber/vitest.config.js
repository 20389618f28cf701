import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.js'],
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
