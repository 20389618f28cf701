import { fileURLToPath } from 'node:url';
import { operator, runScript, useExampleServer } from '@followup/example-support';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.js', import.meta.url));

describe('list-contacts against followup-server on the embedded database', () => {
  const server = useExampleServer('list-contacts');

  it('walks every demo contact with progress and prints the summary', async () => {
    const run = await runScript(main, {
      env: { FOLLOWUP_TOKEN: server.token, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stderr).toContain('… 100 contacts');
    expect(run.stderr).toContain('… 300 contacts');
    expect(run.stdout).toMatch(/^300 contacts$/m);
    expect(run.code).toBe(0);
  });

  it('tells a refused token apart from other failures', async () => {
    const account = server.token.slice(4, server.token.indexOf('.'));
    const wrong = `hns_${account}.${'A'.repeat(43)}`;
    const run = await runScript(main, {
      env: { FOLLOWUP_TOKEN: wrong, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stderr).toContain('The token was refused (token_invalid)');
    expect(run.code).toBe(3);
  });

  it('tells a revoked token by its code', async () => {
    const account = server.token.slice(4, server.token.indexOf('.'));
    const issued = await operator(server.storage, ['tokens', 'issue', '--account', account]);
    await operator(server.storage, ['tokens', 'revoke', '--token', issued.id]);
    const run = await runScript(main, {
      env: { FOLLOWUP_TOKEN: issued.token, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stderr).toContain('The token was refused (token_revoked)');
    expect(run.code).toBe(3);
  });

  it('tells an unreachable server apart', async () => {
    const run = await runScript(main, {
      env: { FOLLOWUP_TOKEN: server.token, FOLLOWUP_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(run.stderr).toContain('Could not reach http://127.0.0.1:9');
    expect(run.code).toBe(6);
  });
});
