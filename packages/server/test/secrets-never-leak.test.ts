import { createHmac } from 'node:crypto';
import { vendorProfiles } from '@followup/webhooks';
import { describe, expect, it } from 'vitest';
import { secretHeaderNames } from '../src/secret-headers.js';
import { parseToken } from '../src/tokens/token-format.js';
import { useTestServer } from './support/server.js';

// Every route of the server is called with every secret-bearing header the server knows of,
// valid and invalid; then every log line and every stored row is scanned for every secret,
// token and signature used.

const ehrSecrets = {
  athenahealth: 'ehr-athena-7c1d',
  akute: 'ehr-akute-2b9e',
  acme: 'ehr-acme-55aa',
};
const inboxSecret = 'inbox-secret-3f7a';
const customProfile = {
  key: 'acme',
  name: 'Acme EHR',
  scheme: 'hmac-sha256-body',
  header: 'x-acme-signature',
  prefix: '',
} as const;

function hex(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

describe('secrets never reach a log line or a stored row', () => {
  const routes: { method: string; url: string }[] = [];
  const server = useTestServer({
    inboxWebhookSecret: inboxSecret,
    ehrWebhookSecrets: ehrSecrets,
    ehrVendorProfiles: { acme: customProfile },
    configure(app) {
      app.addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) {
          if (method !== 'HEAD') routes.push({ method, url: route.url });
        }
      });
    },
  });

  it('derives the secret-bearing headers from the contract and every vendor profile in use', () => {
    const names = secretHeaderNames([...Object.values(vendorProfiles), customProfile]);
    for (const profile of Object.values(vendorProfiles)) {
      if (profile.scheme !== 'none') expect(names).toContain(profile.header);
    }
    expect(names).toContain('x-acme-signature');
    expect(names).toEqual(
      expect.arrayContaining(['authorization', 'cookie', 'x-service-webhook-secret']),
    );
  });

  it('over every route, with valid and wrong credentials and signatures', async () => {
    expect(routes.length).toBeGreaterThan(15);
    const { token } = await server().tokenFor('ADMIN');
    const wrongToken = `${token.slice(0, -4)}AAAA`;
    const body = '{"firstName":"Ada","lastName":"Lovelace","from":"a@example.com","subject":"s"}';
    const t = Math.floor(server().clock.now() / 1000);
    const signatures = {
      'x-hub-signature': `sha256=${hex(ehrSecrets.athenahealth, body)}`,
      'x-akute-signature': `t=${t},v1=${hex(ehrSecrets.akute, `${t}.${body}`)}`,
      'x-acme-signature': hex(ehrSecrets.acme, body),
      'x-metriport-signature': hex('metriport-wrong-9d0c', body),
      'x-service-signature': `t=${t},v1=${hex('whsec-wrong-1e2f', body)}`,
      'webhook-signature': `v1,${Buffer.from(hex('std-wrong', body), 'hex').toString('base64')}`,
    };
    const credentials = [token, wrongToken];
    const secrets = [
      token,
      wrongToken,
      parseToken(token)?.secret ?? token,
      inboxSecret,
      'session-cookie-6a1b',
      'csrf-token-0c4d',
      ...Object.values(ehrSecrets),
      ...Object.values(signatures),
      ...Object.values(signatures).map((value) => value.split(/[=,]/).at(-2) ?? value),
    ].filter((secret) => secret.length >= 12);
    const statuses = new Set<number>();
    for (const route of routes) {
      const url = route.url.replaceAll(/:(\w+)/g, (_match, name) =>
        name === 'ehr' ? 'acme' : 'con_00000000000000000000000000',
      );
      for (const bearer of credentials) {
        for (const ehr of route.url.includes(':ehr')
          ? ['athenahealth', 'akute', 'acme', 'metriport', 'nobody']
          : [undefined]) {
          const response = await server().app.inject({
            method: route.method as 'GET',
            url: ehr ? url.replace('acme', ehr) : url,
            headers: {
              authorization: `Bearer ${bearer}`,
              cookie: 'followup_session=session-cookie-6a1b',
              'x-csrf-token': 'csrf-token-0c4d',
              'x-service-webhook-secret': inboxSecret,
              'content-type': 'application/json',
              ...signatures,
            },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: body }),
          });
          statuses.add(response.statusCode);
          for (const secret of secrets) expect(response.body).not.toContain(secret);
        }
      }
    }
    // Accepted, refused and failed requests were all made.
    expect([...statuses].some((status) => status < 300)).toBe(true);
    expect([...statuses].some((status) => status === 401)).toBe(true);

    const logs = server().logs.join('\n');
    expect(logs).toContain('[redacted]');
    const { rows: tables } = await server().database.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`,
    );
    let stored = '';
    for (const { name } of tables) {
      const { rows } = await server().database.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
      );
      stored += rows.map((row) => row.row).join('\n');
    }
    // EHR receipts were stored, with their headers.
    expect(stored).toContain('x-acme-signature');
    for (const secret of secrets) {
      expect(logs, 'a log line').not.toContain(secret);
      expect(stored, 'a stored row').not.toContain(secret);
    }
  });
});
