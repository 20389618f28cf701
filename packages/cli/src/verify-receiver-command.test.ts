import { newSigningSecret } from '@followup/sdk/receiver-checks';
import { startTestServer, type TestServer } from '@followup/server/testing';
import { verifySignature } from '@followup/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCli, testCli } from '../test/support/test-io.js';
import { startTestReceiver, type TestReceiver } from '../test/support/test-receiver.js';

const secret = newSigningSecret();
let server: TestServer;
let cli: TestCli;
let strict: TestReceiver;
let lax: TestReceiver;
beforeAll(async () => {
  server = await startTestServer();
  cli = testCli({ FOLLOWUP_BASE_URL: server.baseUrl });
  const seen = new Set<string>();
  strict = await startTestReceiver((request, response) => {
    try {
      verifySignature(request.body, request.headers, { secret });
    } catch {
      return void response.writeHead(401).end();
    }
    const { id } = JSON.parse(request.body.toString('utf8'));
    response.writeHead(seen.has(id) ? 200 : 204).end();
    seen.add(id);
  });
  lax = await startTestReceiver();
});
afterAll(async () => {
  await strict?.close();
  await lax?.close();
  cli?.remove();
  await server?.close();
});

describe('followup verify-receiver', () => {
  it("checks every kind of the server's catalogue, prints a table and a summary, exits 1 on a failed check", async () => {
    const run = await cli.run(['verify-receiver', '--url', strict.url, '--secret', secret]);
    // This receiver reads X-Service-Signature only: the Standard Webhooks check fails.
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^Checking http:\/\/127\.0\.0\.1:\d+\/webhooks\n\nCHECK +EXPECT +GOT +TIME +RESULT\n/,
    );
    expect(run.stdout).toMatch(/\ncontact\.created delivered +2xx +204 +\d+ ms +pass\n/);
    expect(run.stdout).toMatch(/\na bad signature +4xx +401 +\d+ ms +pass\n/);
    expect(run.stdout).toMatch(/\nStandard Webhooks headers alone +2xx +401 +\d+ ms +FAIL\n/);
    expect(run.stdout).toMatch(
      /\n {2}FAIL {2}Standard Webhooks headers alone: Signed webhook-signature only: answered 401;/,
    );
    expect(run.stdout).toMatch(
      /\n20 passed, 1 failed, 0 warnings, 0 skipped; answers in \d+ ms \(p50\), \d+ ms at most, of 15 s allowed\. The receiver does not keep the contract\.\n$/,
    );
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it('--json prints the report, and --offline needs no server', async () => {
    const run = await cli.run(
      ['verify-receiver', '--url', lax.url, '--secret', secret, '--json', '--offline'],
      {
        env: { FOLLOWUP_BASE_URL: undefined },
      },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ url: lax.url, ok: false, summary: { failed: 6 } });
    expect(run.stdout).not.toContain(secret);
  });

  it('is a usage error without a receiver, a secret of the right form, or a server to ask', async () => {
    expect((await cli.run(['verify-receiver', '--secret', secret])).code).toBe(2);
    const badSecret = await cli.run(['verify-receiver', '--url', lax.url, '--secret', 'hunter2']);
    expect(badSecret.code).toBe(2);
    expect(badSecret.stderr).not.toContain('hunter2');
    const noServer = await cli.run(['verify-receiver', '--url', lax.url, '--secret', secret], {
      env: { FOLLOWUP_BASE_URL: undefined },
    });
    expect(noServer).toMatchObject({ code: 2, stderr: expect.stringMatching(/--offline/) });
    expect(
      (await cli.run(['verify-receiver', '--url', 'ftp://x/', '--secret', secret, '--offline']))
        .code,
    ).toBe(2);
  });
});
