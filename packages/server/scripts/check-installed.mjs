#!/usr/bin/env node
// Checks @followup/server as a team receives it: `npm pack` it with @followup/sdk and
// @followup/webhooks (its dependencies, not published yet), install the three tarballs into an
// empty folder, then run the installed `followup-server` command: start it with demo data on a
// free port in a scratch data directory, call the API with the printed token, stop it with
// SIGTERM. Every process started here is stopped by its pid.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const scratch = mkdtempSync(join(tmpdir(), 'followup-server-installed-'));
const packages = ['webhooks', 'sdk', 'server'].map(
  (name) => new URL(`../../${name}/`, import.meta.url).pathname,
);

function pack(directory) {
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: directory,
      encoding: 'utf8',
    }),
  );
  return join(scratch, filename);
}

let child;
try {
  const tarballs = packages.map(pack);
  writeFileSync(join(scratch, 'package.json'), '{"name":"scratch","private":true}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
    cwd: scratch,
    stdio: 'ignore',
  });
  const bin = join(scratch, 'node_modules', '.bin', 'followup-server');
  child = spawn(
    bin,
    ['start', '--demo', '--json', '--port', '0', '--data-dir', join(scratch, 'data')],
    { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`followup-server exited with ${code}:\n${log}`);
  });
  const [line] = await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    exited,
  ]);
  const { url, token } = JSON.parse(line);
  const health = await fetch(`${url}/healthz`);
  if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  const response = await fetch(`${url}/api/contacts?limit=3`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await response.json();
  if (response.status !== 200 || body.contacts.length !== 3) {
    throw new Error(`GET /api/contacts answered ${response.status}: ${JSON.stringify(body)}`);
  }
  const stopped = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await stopped;
  if (code !== 0) throw new Error(`followup-server stopped with exit code ${code}:\n${log}`);
  console.log('installed package: followup-server starts, serves demo data and stops cleanly');
} finally {
  if (child?.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
}
