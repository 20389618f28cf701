#!/usr/bin/env node
// Checks @followup/sdk as a user receives it: `npm pack` it (and @followup/webhooks, which it
// depends on and which is not published yet), install both tarballs into an empty folder, then
// load the SDK with `import` and with `require` and use both copies together.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const packageDir = new URL('..', import.meta.url).pathname;
const webhooksDir = new URL('../../webhooks/', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'followup-sdk-installed-'));

function pack(directory) {
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: directory,
      encoding: 'utf8',
    }),
  );
  return join(scratch, filename);
}

try {
  const tarballs = [pack(webhooksDir), pack(packageDir)];
  writeFileSync(join(scratch, 'package.json'), '{"name":"scratch","private":true}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
    cwd: scratch,
    stdio: 'ignore',
  });
  const check = `
    const assert = require('node:assert/strict');
    const { inspect } = require('node:util');
    const cjs = require('@followup/sdk');
    (async () => {
      const esm = await import('@followup/sdk');
      assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).sort());
      const token = 'hns_sa_check.c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1sZWFr';
      for (const sdk of [esm, cjs]) {
        const client = new sdk.FollowUp({ token, baseUrl: 'http://127.0.0.1:9' });
        assert.equal(client.serviceAccountId, 'sa_check');
        assert.ok(!JSON.stringify(client).includes('c2VjcmV0'));
        assert.ok(!inspect(client, { depth: null, showHidden: true }).includes('c2VjcmV0'));
        assert.ok(sdk.contactSchema.safeParse({ id: 'con_1', firstName: 'A', lastName: 'B',
          lifecycle: 'SOMETHING_NEW', createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z' }).success);
      }
      let thrown;
      try { new cjs.FollowUp({ token: 'not-a-token', baseUrl: 'http://127.0.0.1:9' }); }
      catch (error) { thrown = error; }
      assert.equal(esm.ConfigurationError.isInstance(thrown), true);
      assert.equal(esm.FollowUpError.isInstance(thrown), true);
      assert.equal(cjs.APIError.isInstance(thrown), false);
      assert.equal(thrown instanceof esm.FollowUpError, false); // two copies: instanceof says no
      // A connection error from the CommonJS copy, recognised by the ESM copy.
      const client = new cjs.FollowUp({ token, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
      const failure = await client.contacts.get('con_1').catch((error) => error);
      assert.equal(esm.APIConnectionError.isInstance(failure), true);
      assert.ok(!inspect(failure, { depth: null, showHidden: true }).includes('c2VjcmV0'));
      console.log('installed package: import and require work, and the two copies agree');
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  writeFileSync(join(scratch, 'check.cjs'), check);
  execFileSync(process.execPath, ['check.cjs'], { cwd: scratch, stdio: 'inherit' });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
