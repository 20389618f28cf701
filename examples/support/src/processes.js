import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A scratch directory for one server's data, and `remove()` to delete it afterwards.
 *
 * @param {string} label part of the directory's name
 */
export function scratchDataDir(label) {
  const parent = mkdtempSync(join(tmpdir(), `followup-example-${label}-`));
  return {
    storage: { dataDir: join(parent, 'data') },
    remove: () => rmSync(parent, { recursive: true, force: true }),
  };
}

/**
 * Runs `node <script> ...args` to its end and resolves with its exit code and output. A script
 * still running after `timeoutMs` is stopped with SIGKILL and reported with code `null`.
 *
 * @param {string} script path of the example's script
 * @param {{ args?: string[], env?: Record<string, string>, timeoutMs?: number }} [options]
 */
export async function runScript(script, { args = [], env = {}, timeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code, stdout, stderr };
}
