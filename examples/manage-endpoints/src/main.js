// Registers a local receiver as a webhook endpoint of a running server, sends it a test, creates
// a contact, replays the last hour, and prints what arrived:
//   FOLLOWUP_TOKEN=hns_… FOLLOWUP_BASE_URL=http://127.0.0.1:3000 \
//     npm start -w @followup/example-manage-endpoints
// The token needs webhooks.manage (ADMIN); the server must be allowed to reach loopback
// (`followup-server start --demo` or `--allow-private-endpoints`).
import { FollowUpError } from '@followup/sdk';
import { manageEndpoints } from './manage-endpoints.js';

const token = process.env.FOLLOWUP_TOKEN;
if (!token) {
  console.error('Usage: FOLLOWUP_TOKEN=hns_… [FOLLOWUP_BASE_URL=…] npm start');
  process.exit(2);
}
try {
  await manageEndpoints({
    baseUrl: process.env.FOLLOWUP_BASE_URL ?? 'http://127.0.0.1:3000',
    token,
    log: (line) => console.log(line),
  });
} catch (error) {
  if (!FollowUpError.isInstance(error)) throw error;
  console.error(`Stopped (${error.code}): ${error.message}`);
  process.exit(1);
}
