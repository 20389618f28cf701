#!/usr/bin/env node
// Checks the package as a user receives it: `npm pack`, install the tarball alone into a scratch
// project outside the workspace, then load every entry with both `import` and `require` and use
// it.
import { runScript, withInstalledPackages } from '../../../scripts/packages/packed.mjs';

await withInstalledPackages(['webhooks'], (scratch) => {
  runScript(
    scratch,
    'check.cjs',
    `
    const assert = require('node:assert/strict');
    const cjs = require('@followup/webhooks');
    const cjsWeb = require('@followup/webhooks/web');
    const vectors = require('@followup/webhooks/vectors.json');
    (async () => {
      const esm = await import('@followup/webhooks');
      const esmWeb = await import('@followup/webhooks/web');
      const body = '{"id":"dlv_1"}';
      const header = esm.signPayload(body, { secret: 'whsec_x', timestamp: 1700000000 });
      assert.equal(cjs.signPayload(body, { secret: 'whsec_x', timestamp: 1700000000 }), header);
      assert.equal(await esmWeb.signPayload(body, { secret: 'whsec_x', timestamp: 1700000000 }), header);
      assert.deepEqual(await cjsWeb.verifySignature(body, header, { secret: 'whsec_x', now: 1700000000 }),
        { timestamp: 1700000000, secretIndex: 0 });
      const failure = cjs.safeVerifySignature(body, 'junk', { secret: 'whsec_x' });
      assert.equal(failure.ok, false);
      for (const module of [esm, esmWeb, cjs, cjsWeb]) {
        assert.equal(module.WebhookVerificationError.isInstance(failure.error), true);
      }
      assert.ok(vectors.verify.length > 0);
      assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).sort());
      console.log('installed package: import and require of both entries work');
    })().catch((error) => { console.error(error); process.exit(1); });
  `,
  );
});
