import { fileURLToPath } from 'node:url';
import { operator, runScript, useExampleServer } from '@followup/example-support';
import { AuthenticationError, FollowUp } from '@followup/sdk';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.js', import.meta.url));

describe('rotate-token against followup-server on the embedded database', () => {
  const server = useExampleServer('rotate-token');

  it('rotates without a failed call, then the old token is revoked and the new one works', async () => {
    const account = await operator(server.storage, [
      'accounts',
      'create',
      '--name',
      'billing',
      '--role',
      'READONLY',
    ]);
    const old = await operator(server.storage, ['tokens', 'issue', '--account', account.id]);
    const run = await runScript(main, {
      args: ['--token-id', old.id, '--data-dir', server.storage.dataDir],
      env: { FOLLOWUP_TOKEN: old.token, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^1\. issued tok_\S+ for /m);
    expect(run.stdout).toContain('2. both tokens work');
    expect(run.stdout).toContain('3. traffic switched to the new token');
    expect(run.stdout).toContain(`4. revoked ${old.id}`);
    const newToken = run.stdout.match(
      /New token \(shown once, store it now\):\n {2}(hns_\S+)/,
    )?.[1];
    expect(newToken).toBeDefined();

    await expect(
      new FollowUp({ token: newToken, baseUrl: server.url }).contacts.count(),
    ).resolves.toBeTypeOf('number');
    await expect(
      new FollowUp({ token: old.token, baseUrl: server.url, maxRetries: 0 }).contacts.count(),
    ).rejects.toSatisfy(
      (error) => AuthenticationError.isInstance(error) && error.code === 'token_revoked',
    );
    const tokens = await operator(server.storage, ['tokens', 'list', '--account', account.id]);
    expect(tokens.map((token) => [token.id === old.id, token.state]).sort()).toEqual([
      [false, 'active'],
      [true, 'revoked'],
    ]);
  });
});
