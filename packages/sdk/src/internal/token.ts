import { ConfigurationError } from '../errors.js';

const TOKEN = /^hns_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/**
 * Checks that `token` has the shape `hns_<service account id>.<secret>` and returns the account
 * id. The error says what is wrong without ever repeating the token or any part of its secret.
 */
export function parseToken(token: unknown): { serviceAccountId: string } {
  const expected = 'The token must look like hns_<service account id>.<secret>';
  if (typeof token !== 'string' || token.length === 0) {
    throw new ConfigurationError({
      message: `No token was given. ${expected}; issue one with \`followup-server tokens issue\`.`,
    });
  }
  if (token.trim() !== token) {
    throw new ConfigurationError({
      message: `${expected}, but it has leading or trailing whitespace (check how it was copied).`,
    });
  }
  if (token.toLowerCase().startsWith('bearer ')) {
    throw new ConfigurationError({
      message: `${expected}, without the "Bearer " prefix: the SDK adds it.`,
    });
  }
  const match = TOKEN.exec(token);
  if (match === null) {
    const problem = !token.startsWith('hns_')
      ? 'it does not start with hns_'
      : !token.includes('.')
        ? 'it has no dot between the account id and the secret'
        : 'the account id or the secret is empty or has characters other than A-Z, a-z, 0-9, _ and -';
    throw new ConfigurationError({ message: `${expected}, but ${problem}.` });
  }
  return { serviceAccountId: match[1] as string };
}
