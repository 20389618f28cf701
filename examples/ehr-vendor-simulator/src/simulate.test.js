import { fileURLToPath } from 'node:url';
import { runScript, useExampleServer } from '@followup/example-support';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.js', import.meta.url));
// Secrets for two of the three signing vendors; metriport has none, so it answers 501.
const secrets = {
  EHR_WEBHOOK_SECRET_ATHENAHEALTH: 'athena-example-secret',
  EHR_WEBHOOK_SECRET_AKUTE: 'akute-example-secret',
};

describe('ehr-vendor-simulator against followup-server on the embedded database', () => {
  const server = useExampleServer('ehr-simulator', { environment: secrets });

  it('gets 202 for each signed webhook, 401 for a wrong secret, 501 and 404 where promised', async () => {
    const run = await runScript(main, { env: { ...secrets, FOLLOWUP_BASE_URL: server.url } });
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, -1).map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'ok athenahealth',
      'ok athenahealth',
      'ok akute',
      'ok akute',
      'ok metriport',
      'ok epic',
      'ok oracle-health',
      'ok canvas',
      'ok no-such-vendor',
    ]);
    expect(run.stdout).toMatch(/athenahealth\s+signed\s+202 \(expected 202\) rcpt_/);
    expect(run.stdout).toMatch(/akute\s+wrong secret\s+401 \(expected 401\) signature_invalid/);
    expect(run.stdout).toMatch(/metriport\s+no secret configured\s+501/);
    expect(run.stdout).toMatch(
      /no-such-vendor\s+unknown vendor\s+404 \(expected 404\) unknown_vendor/,
    );
    expect(lines.at(-1)).toBe('Every answer was as expected.');
    expect(run.code).toBe(0);
  });

  it('says so and exits 1 when the server does not answer as promised', async () => {
    // The simulator believes metriport has a secret the server does not know: 501, not 202.
    const run = await runScript(main, {
      env: {
        ...secrets,
        EHR_WEBHOOK_SECRET_METRIPORT: 'unknown-to-the-server',
        FOLLOWUP_BASE_URL: server.url,
      },
    });
    expect(run.stdout).toMatch(/^FAIL metriport\s+signed\s+501 \(expected 202\)/m);
    expect(run.stdout).toContain('unexpected answers.');
    expect(run.code).toBe(1);
  });
});
