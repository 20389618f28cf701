// The interface's rotation without downtime: issue a new token, deploy with both available,
// switch traffic, then revoke the old one. Calls keep succeeding through every step.
import { AuthenticationError, FollowUp, splitToken } from '@followup/sdk';

/**
 * An application's client whose token can be swapped while it serves traffic (a real deployment
 * rolls out new instances with the new token instead).
 */
export class SwappableClient {
  /** @param {{ token: string, baseUrl: string }} options */
  constructor({ token, baseUrl }) {
    this.baseUrl = baseUrl;
    this.client = new FollowUp({ token, baseUrl });
  }
  /** @param {string} token */
  switchTo(token) {
    this.client = new FollowUp({ token, baseUrl: this.baseUrl });
  }
}

/**
 * Runs the four steps and reports each through `log`. Throws if any call fails along the way.
 *
 * @param {object} options
 * @param {string} options.baseUrl
 * @param {string} options.oldToken the token in use today
 * @param {string} options.oldTokenId its id (`followup-server tokens list --account …`)
 * @param {(args: string[]) => Promise<any>} options.operator runs `followup-server <args> --json`
 * @param {(line: string) => void} options.log
 * @returns {Promise<{ newToken: string, newTokenId: string, callsDuringRotation: number }>}
 */
export async function rotateToken({ baseUrl, oldToken, oldTokenId, operator, log }) {
  const account = splitToken(oldToken)?.accountId;
  if (account === undefined)
    throw new Error('oldToken is not a FollowUp token (hns_<account>.<secret>).');
  const app = new SwappableClient({ token: oldToken, baseUrl });
  let calls = 0;
  const call = async () => {
    await app.client.contacts.count();
    calls++;
  };
  await call();

  // 1. Issue a new token for the same service account. Its plaintext is shown once.
  const issued = await operator(['tokens', 'issue', '--account', account]);
  log(`1. issued ${issued.id} for ${account}; ${oldTokenId} stays valid`);

  // 2. Deploy with both available: each authenticates on its own.
  await new FollowUp({ token: issued.token, baseUrl }).contacts.count();
  await call();
  log('2. both tokens work');

  // 3. Switch traffic to the new token; calls in flight and after keep succeeding.
  const inFlight = Promise.all([call(), call(), call()]);
  app.switchTo(issued.token);
  await Promise.all([inFlight, call(), call()]);
  log('3. traffic switched to the new token');

  // 4. Revoke the old token (audited); from now on it answers 401 token_revoked.
  await operator(['tokens', 'revoke', '--token', oldTokenId]);
  await call();
  try {
    await new FollowUp({ token: oldToken, baseUrl, maxRetries: 0 }).contacts.count();
    throw new Error('The old token still works after its revocation.');
  } catch (error) {
    if (!AuthenticationError.isInstance(error) || error.code !== 'token_revoked') throw error;
  }
  log(`4. revoked ${oldTokenId}: it now answers 401 token_revoked; the new token works`);
  return { newToken: issued.token, newTokenId: issued.id, callsDuringRotation: calls };
}
