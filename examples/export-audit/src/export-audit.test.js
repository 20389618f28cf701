import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript, useExampleServer } from '@followup/example-support';
import { APIConnectionError, FollowUp } from '@followup/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportAudit } from './export-audit.js';

const main = fileURLToPath(new URL('./main.js', import.meta.url));
const idsIn = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).id);

describe('export-audit against followup-server on the embedded database', () => {
  const server = useExampleServer('export-audit');
  let client;
  let expected;
  beforeAll(async () => {
    client = new FollowUp({ token: server.token, baseUrl: server.url, maxRetries: 0 });
    // Deleting a contact is audited: 23 entries at least, several pages of 5.
    for (let index = 0; index < 23; index++) {
      const contact = await client.contacts.create({ firstName: 'Audit', lastName: `N${index}` });
      await client.contacts.delete(contact.id);
    }
    expected = [];
    for await (const entry of client.audit.list({ limit: 200 })) expected.push(entry.id);
  });

  it('resumes after a failure and a torn write, and writes every entry exactly once', async () => {
    const file = join(server.storage.dataDir, '..', 'audit.ndjson');
    const stateFile = `${file}.state`;
    // A network that fails on the third request: two pages are saved, then the walk stops.
    let requests = 0;
    const failing = new FollowUp({
      token: server.token,
      baseUrl: server.url,
      maxRetries: 0,
      fetch: (input, init) => {
        requests++;
        if (requests === 3) return Promise.reject(new TypeError('fetch failed'));
        return fetch(input, init);
      },
    });
    await expect(exportAudit(failing, { file, stateFile, limit: 5 })).rejects.toSatisfy((error) =>
      APIConnectionError.isInstance(error),
    );
    expect(idsIn(file)).toEqual(expected.slice(0, 10));
    // A crash in the middle of writing a page leaves part of a line after the saved position.
    appendFileSync(file, '{"id":"aud_torn","act');

    const done = await exportAudit(client, { file, stateFile, limit: 5 });
    expect(done).toMatchObject({ done: true, entries: expected.length, cursor: null });
    expect(idsIn(file)).toEqual(expected);
    // Run again once finished: nothing more is written.
    await exportAudit(client, { file, stateFile, limit: 5 });
    expect(idsIn(file)).toEqual(expected);
  });

  it('runs as a command', async () => {
    const file = join(server.storage.dataDir, '..', 'cli-audit.ndjson');
    const run = await runScript(main, {
      args: [file],
      env: { FOLLOWUP_TOKEN: server.token, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stdout).toContain(`audit entries in ${file}`);
    expect(run.code).toBe(0);
    expect(idsIn(file).slice(0, expected.length)).toEqual(expected);
  });
});
