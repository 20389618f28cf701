// Runs the reference server the way a user does, through its `followup-server` command, and
// operator commands beside it. Every process started here is stopped by its pid.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);
const serverPackage = require.resolve('@followup/server/package.json');
const cli = join(
  dirname(serverPackage),
  JSON.parse(readFileSync(serverPackage, 'utf8')).bin['followup-server'],
);

/**
 * Where the server keeps its data: `{ dataDir }` for embedded PGlite, `{ databaseUrl }` for
 * PostgreSQL.
 *
 * @typedef {{ dataDir: string } | { databaseUrl: string }} Storage
 */

/** @param {Storage} storage */
function storageArguments(storage) {
  return 'databaseUrl' in storage
    ? ['--database-url', storage.databaseUrl]
    : ['--data-dir', storage.dataDir];
}

/**
 * Starts `followup-server start --demo --json` on a free loopback port and resolves once it
 * listens, with its URL, the demo ADMIN token and a `stop()` that ends it with SIGTERM.
 *
 * @param {Storage} storage
 * @param {Record<string, string>} [environment] extra environment, e.g. INBOX_WEBHOOK_SECRET
 * @param {string[]} [extraArguments] more `start` flags
 */
export async function startServer(storage, environment = {}, extraArguments = []) {
  const child = spawn(
    process.execPath,
    [
      cli,
      'start',
      '--demo',
      '--json',
      '--port',
      '0',
      ...storageArguments(storage),
      ...extraArguments,
    ],
    { env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`followup-server exited with ${code} before listening:\n${log}`);
  });
  const [line] = await Promise.race([once(lines, 'line'), exited]);
  const { url, token, driver } = JSON.parse(line);
  return {
    url,
    token,
    driver,
    /** Stops the server with SIGTERM (a graceful shutdown) and waits for it to exit. */
    async stop() {
      if (child.exitCode !== null) return;
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      await exit;
    },
  };
}

/**
 * Runs one operator command (`accounts create …`, `tokens issue …`) with `--json`; while the
 * server runs on PGlite it reaches the server through its operator channel.
 *
 * @param {Storage} storage
 * @param {string[]} args
 */
export async function operator(storage, args) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cli, ...args, '--json', ...storageArguments(storage)],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout);
}
