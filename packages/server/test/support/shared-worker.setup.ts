import { afterAll, vi } from 'vitest';

// Most test files share their worker with the files before and after them (`isolate: false`,
// vitest.config.ts). A file that fails before its own clean-up runs must not leave the next one
// on fake timers or stubbed globals: put them back once the file ends, whatever happened.
afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
