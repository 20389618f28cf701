// One server per example test file: started before the file's tests, stopped and its scratch
// data directory removed after them.
import { afterAll, beforeAll } from 'vitest';
import { scratchDataDir } from './processes.js';
import { startServer } from './server-process.js';

/**
 * Registers vitest hooks that start `followup-server start --demo` on a scratch embedded data
 * directory before the file's tests and stop it after them. Returns at once with the server's
 * `storage` (for `operator`); its `url`, `token` and `driver` are filled in before the first test
 * runs. Call it at the top of a test file or a `describe` block.
 *
 * @param {string} label names the scratch directory
 * @param {{ environment?: Record<string, string>, arguments?: string[] }} [options] extra
 *   environment (e.g. a vendor's secret) and `start` flags
 */
export function useExampleServer(label, { environment = {}, arguments: extra = [] } = {}) {
  const scratch = scratchDataDir(label);
  const server = { storage: scratch.storage, url: '', token: '', driver: '' };
  /** @type {{ stop(): Promise<void> } | undefined} */
  let running;
  beforeAll(async () => {
    running = await startServer(scratch.storage, environment, extra);
    Object.assign(server, { url: running.url, token: running.token, driver: running.driver });
  });
  afterAll(async () => {
    await running?.stop();
    scratch.remove();
  });
  return server;
}
