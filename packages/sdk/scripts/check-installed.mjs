#!/usr/bin/env node
// Checks @followup/sdk as a user receives it: `npm pack` it and @followup/webhooks (its one
// dependency of ours), install the two tarballs alone into a scratch project outside the
// workspace, then load the SDK with `import` and with `require`, use both copies together, and
// walk a list and get a typed error from a tiny server.
import { runScript, withInstalledPackages } from '../../../scripts/packages/packed.mjs';

await withInstalledPackages(['webhooks', 'sdk'], (scratch) => {
  runScript(
    scratch,
    'check.cjs',
    `
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
      // A real call: a walk over two pages and a typed 404, against a tiny server.
      const { createServer } = require('node:http');
      const contacts = ['a', 'b', 'c'].map((letter) => ({ id: 'con_' + letter, firstName: 'A',
        lastName: 'B', lifecycle: 'LEAD', createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z' }));
      const server = createServer((request, response) => {
        const url = new URL(request.url, 'http://localhost');
        assert.equal(request.headers.authorization, 'Bearer ' + token);
        if (url.pathname === '/api/contacts') {
          // Keyset pages, as the server answers them: the cursor is where the next page starts.
          const offset = Number(url.searchParams.get('cursor') ?? url.searchParams.get('offset') ?? 0);
          const limit = Number(url.searchParams.get('limit') ?? 50);
          const page = contacts.slice(offset, offset + limit);
          const next = offset + limit < contacts.length ? String(offset + limit) : null;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ contacts: page, nextCursor: next }));
          return;
        }
        response.writeHead(404, { 'content-type': 'application/problem+json' });
        response.end(JSON.stringify({ type: 'urn:followup:problem:not_found', title: 'Not Found',
          status: 404, code: 'not_found' }));
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const api = new esm.FollowUp({ token, baseUrl: 'http://127.0.0.1:' + server.address().port,
          maxRetries: 0 });
        const ids = [];
        for await (const contact of api.contacts.list({ limit: 2 })) ids.push(contact.id);
        assert.deepEqual(ids, ['con_a', 'con_b', 'con_c']);
        const missing = await api.contacts.get('con_x').catch((error) => error);
        assert.equal(cjs.NotFoundError.isInstance(missing), true);
        assert.equal(missing.code, 'not_found');
      } finally {
        server.close();
      }
      // The receiver checks' subpath, both ways.
      const checksEsm = await import('@followup/sdk/receiver-checks');
      const checksCjs = require('@followup/sdk/receiver-checks');
      assert.deepEqual(Object.keys(checksEsm).sort(), Object.keys(checksCjs).sort());
      assert.equal(checksCjs.isSigningSecret(checksEsm.newSigningSecret()), true);
      const refused = await checksCjs.verifyReceiver({ url: 'ftp://x/', secret: 'x' }).catch((error) => error);
      assert.equal(esm.ConfigurationError.isInstance(refused), true);
      console.log('installed package: import and require work, the two copies agree, and a walk and a typed error work against a server');
    })().catch((error) => { console.error(error); process.exit(1); });
  `,
  );
});
