#!/usr/bin/env node
// Checks the three packages as a team receives them: `npm pack` @followup/server with
// @followup/sdk and @followup/webhooks, install the three tarballs alone into a scratch project
// outside the workspace, then:
// - `import` and `require` every entry of each (the server's are ES modules, which `require`
//   loads on Node 22.12 and later);
// - type-check a consumer with tsc under `moduleResolution` node16 (ESM and CommonJS files) and
//   bundler;
// - run the installed `followup-server` command: start it with demo data on a free port in a
//   scratch data directory, call the API with the printed token, stop it with SIGTERM.
// Every process started here is stopped by its pid.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { root, runScript, withInstalledPackages } from '../../../scripts/packages/packed.mjs';

const ENTRIES = [
  '@followup/webhooks',
  '@followup/webhooks/web',
  '@followup/sdk',
  '@followup/server',
  '@followup/server/testing',
];

function importAndRequire(scratch) {
  runScript(
    scratch,
    'entries.cjs',
    `
    const assert = require('node:assert/strict');
    (async () => {
      for (const entry of ${JSON.stringify(ENTRIES)}) {
        const required = require(entry);
        const imported = await import(entry);
        assert.ok(Object.keys(required).length > 0, entry + ' exports nothing');
        assert.deepEqual(
          Object.keys(required).filter((key) => key !== 'default' && key !== '__esModule').sort(),
          Object.keys(imported).filter((key) => key !== 'default' && key !== 'module.exports').sort(),
          entry,
        );
      }
      const { buildServer } = require('@followup/server');
      assert.equal(typeof buildServer, 'function');
      console.log('installed packages: import and require of every entry work');
    })().catch((error) => { console.error(error); process.exit(1); });
  `,
  );
}

const consumer = `
import { FollowUp, NotFoundError, type Contact } from '@followup/sdk';
import { signPayload, verifySignature } from '@followup/webhooks';
import * as web from '@followup/webhooks/web';
import { buildServer, migrate, openPGliteDatabase } from '@followup/server';

const client = new FollowUp({ token: 'hns_sa_1.secret', baseUrl: 'http://127.0.0.1:3000' });
export const contact: Promise<Contact> = client.contacts.get('con_1');
export const header: string = signPayload('{}', { secret: 'whsec_x' });
export const verified: { timestamp: number } = verifySignature('{}', header, { secret: 'whsec_x' });
export const onWeb: Promise<{ timestamp: number }> = web.verifySignature('{}', header, {
  secret: 'whsec_x',
});
export async function serve(): Promise<number> {
  const database = await openPGliteDatabase();
  await migrate(database);
  const response = await buildServer({ database }).inject({ method: 'GET', url: '/healthz' });
  return response.statusCode;
}
export const isNotFound = (error: unknown): boolean => NotFoundError.isInstance(error);
// @ts-expect-error a contact id is a string
client.contacts.get(1);
`;

const commonJsConsumer = `
import sdk = require('@followup/sdk');
import webhooks = require('@followup/webhooks');
import web = require('@followup/webhooks/web');

export const client = new sdk.FollowUp({ token: 'hns_sa_1.secret', baseUrl: 'http://127.0.0.1' });
export const header: string = webhooks.signPayload('{}', { secret: 'whsec_x' });
export const verified: Promise<{ timestamp: number }> = web.verifySignature('{}', header, {
  secret: 'whsec_x',
});
`;

function typeCheck(scratch) {
  writeFileSync(join(scratch, 'consumer.mts'), consumer);
  writeFileSync(join(scratch, 'consumer-commonjs.cts'), commonJsConsumer);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: 'es2022',
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
  };
  const settings = {
    node16: {
      compilerOptions: { ...compilerOptions, module: 'node16', moduleResolution: 'node16' },
      files: ['consumer.mts', 'consumer-commonjs.cts'],
    },
    bundler: {
      compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
      files: ['consumer.mts'],
    },
  };
  for (const [name, config] of Object.entries(settings)) {
    writeFileSync(join(scratch, `tsconfig.${name}.json`), JSON.stringify(config));
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${name}.json`],
      { cwd: scratch, stdio: 'inherit' },
    );
  }
  console.log('installed packages: a consumer type-checks under node16 and bundler resolution');
}

async function runInstalledServer(scratch) {
  const bin = join(scratch, 'node_modules', '.bin', 'followup-server');
  const child = spawn(
    bin,
    ['start', '--demo', '--json', '--port', '0', '--data-dir', join(scratch, 'data')],
    { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
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
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

await withInstalledPackages(['webhooks', 'sdk', 'server'], async (scratch) => {
  importAndRequire(scratch);
  typeCheck(scratch);
  await runInstalledServer(scratch);
});
