import { ConfigurationError } from '../follow-up-error.js';
import { splitToken, TOKEN_PREFIX } from '../wire/token-grammar.js';

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
  const parts = splitToken(token);
  if (parts === undefined) {
    const problem = !token.startsWith(TOKEN_PREFIX)
      ? `it does not start with ${TOKEN_PREFIX}`
      : !token.includes('.')
        ? 'it has no dot between the account id and the secret'
        : 'the account id (1 to 64 of A-Z, a-z, 0-9 and _) or the secret (A-Z, a-z, 0-9, _ and -) is empty or has other characters';
    throw new ConfigurationError({ message: `${expected}, but ${problem}.` });
  }
  return { serviceAccountId: parts.accountId };
}
