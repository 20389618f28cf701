import { describe, expect, it } from 'vitest';
import { bundleSize } from '../../../scripts/testing/bundle-size.mjs';

// What an application ships for the SDK's client, bundled from the built package (so run after
// `npm run build`). Measured when the budgets were set (esbuild, minified, gzip -9): the client
// with zod 107.8 KB gzipped (499 KB minified), nearly all of it zod; the SDK's own code, zod and
// @followup/webhooks left out, 12.2 KB gzipped. The budgets leave about 10 % for growth; going
// past one is a decision to make in review, with the new figure here.
// Reviewed: the SDK's own code grew to 14.7 KB with the keyset lists and their filters, change
// sync and upsertMany, the eight webhook event kinds and their schemas, me(), and the request
// options, hooks and client header; the budget is now 16 KB.
// Reviewed: client.webhooks.handler (a whole endpoint: Web and Node adapters, bounded body
// reading, dedupe with MemoryDeliveryStore, dispatch by kind) adds 1.7 KB, to 16.5 KB; the
// budget is now 18 KB.
// Reviewed: the transport moved onto ky, a dependency like zod, so the SDK's own code leaves it
// out (the request pipeline, split into named steps, grew 0.7 KB); the client with its
// dependencies went from 107.8 to 116.6 KB (ky adds 8.1 KB gzipped), so that budget is now
// 128 KB. Together with the wire contract and the handler's later fixes the SDK's own code
// reached 18.1 KB (18,518 bytes; bundled from source, 17.6 KB before the transport's move and
// 18.3 KB after it); with the usual tenth for growth the budget is now 20 KB.
// Reviewed: the webhook API (client.webhookEndpoints and client.deliveries' list, get and retry,
// their schemas and bounds, the static headers' checks) took it to 20.3 KB (20,832 bytes); with
// the usual tenth for growth the budget is now 23 KB.
// Reviewed: the receiver checks (verifyReceiver, signDelivery, postDelivery) are a subpath of
// their own, @followup/sdk/receiver-checks, and none of them reaches the main entry (the test
// below). The receiver checks' entry is
// 4.0 KB more for those who import it.
const KB = 1024;
const packageDir = new URL('..', import.meta.url).pathname;

describe('size budget of the built client', () => {
  it('FollowUp with its dependencies stays under 128 KB gzipped', async () => {
    const size = await bundleSize({
      source: "export { FollowUp } from './dist/index.js';",
      resolveDir: packageDir,
      platform: 'browser',
    });
    expect(size.gzipped).toBeLessThan(128 * KB);
  });

  it("the SDK's own code stays under 23 KB gzipped", async () => {
    const size = await bundleSize({
      source: "export * from './dist/index.js';",
      resolveDir: packageDir,
      platform: 'browser',
      external: ['zod', 'ky', '@followup/webhooks', '@followup/webhooks/web'],
    });
    expect(size.gzipped).toBeLessThan(23 * KB);
  });

  it('carries none of the receiver checks, which are @followup/sdk/receiver-checks', async () => {
    const { build } = await import('esbuild');
    const bundled = await build({
      stdin: { contents: "export * from './dist/index.js';", resolveDir: packageDir },
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      external: ['zod', 'ky', '@followup/webhooks', '@followup/webhooks/web'],
    });
    const code = bundled.outputFiles[0]?.text ?? '';
    expect(code).toContain('contactSchema');
    for (const name of ['verifyReceiver', 'signDelivery', 'postDelivery', 'dlv_check_']) {
      expect(code).not.toContain(name);
    }
  });
});
