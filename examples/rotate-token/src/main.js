// Rotates a token of a running server without downtime, step by step:
//   FOLLOWUP_TOKEN=hns_… FOLLOWUP_BASE_URL=http://127.0.0.1:3000 \
//     npm start -w @followup/example-rotate-token -- --token-id tok_… [--data-dir DIR]
// The token id is in `followup-server tokens list --account sa_…`. Operator commands run beside
// the server, on the same data directory (or FOLLOWUP_DATA_DIR / DATABASE_URL).
import { parseArgs } from 'node:util';
import { operator } from '@followup/example-support';
import { FollowUpError } from '@followup/sdk';
import { rotateToken } from './rotate-token.js';

const { values } = parseArgs({
  options: { 'token-id': { type: 'string' }, 'data-dir': { type: 'string' } },
});
const oldToken = process.env.FOLLOWUP_TOKEN;
if (!oldToken || !values['token-id']) {
  console.error('Usage: FOLLOWUP_TOKEN=hns_… npm start -- --token-id tok_… [--data-dir DIR]');
  process.exit(2);
}
const dataDir = values['data-dir'] ?? process.env.FOLLOWUP_DATA_DIR;
const storage = dataDir ? { dataDir } : { databaseUrl: process.env.DATABASE_URL };
try {
  const { newToken } = await rotateToken({
    baseUrl: process.env.FOLLOWUP_BASE_URL ?? 'http://127.0.0.1:3000',
    oldToken,
    oldTokenId: values['token-id'],
    operator: (args) => operator(storage, args),
    log: (line) => console.log(line),
  });
  console.log(`New token (shown once, store it now):\n  ${newToken}`);
} catch (error) {
  if (!FollowUpError.isInstance(error)) throw error;
  console.error(`Rotation stopped (${error.code}): ${error.message}`);
  process.exit(1);
}
