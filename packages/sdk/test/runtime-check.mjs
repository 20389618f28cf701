// Run by test/runtimes.test.ts under Deno and Bun: the built SDK against a small API served by
// the test (its URL in argv), printed as one JSON line.
import { FollowUp, NotFoundError } from '../dist/index.js';

const baseUrl = globalThis.Deno ? globalThis.Deno.args[0] : globalThis.process.argv[2];
const client = new FollowUp({
  token: 'hns_sa_runtime.c2VjcmV0LXNlY3JldC1zZWNyZXQ',
  baseUrl,
  maxRetries: 0,
});
const ids = [];
for await (const contact of client.contacts.list({ limit: 2 })) ids.push(contact.id);
const missing = await client.contacts.get('con_missing').catch((error) => error);
console.log(
  JSON.stringify({
    ids,
    notFound: NotFoundError.isInstance(missing),
    code: missing.code,
    inspect: JSON.stringify(client).includes('c2VjcmV0'),
  }),
);
