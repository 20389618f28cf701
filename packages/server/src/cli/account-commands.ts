import { parseDuration } from '../duration.js';
import { createAccountStore } from '../tokens/account-store.js';
import type { TokenInfo } from '../tokens/account-types.js';
import { type Role, roles } from '../tokens/role.js';
import { MAX_ROLL_GRACE_SECONDS, MAX_TOKEN_TTL_SECONDS } from '../tokens/token-limits.js';
import { listOutput, type OperatorCommand, output, pageOf } from './operator-command.js';
import { type OptionName, PAGE_OPTIONS, required, UsageError } from './usage.js';

function tokenLine(token: TokenInfo): string {
  const expiry = token.expiresAt === null ? 'no expiry' : `expires ${token.expiresAt}`;
  const used = token.lastUsedAt === null ? 'never used' : `last used ${token.lastUsedAt}`;
  const label = token.label === null ? '' : `  ${JSON.stringify(token.label)}`;
  return `${token.id}  ${token.state.padEnd(7)}  created ${token.createdAt}  ${expiry}  ${used}${label}\n`;
}

/** @internal The operator's commands of service accounts and tokens, by name. */
export const accountCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'accounts create'(values, database) {
    const name = required(values, 'name');
    const role = required(values, 'role').toUpperCase();
    if (!roles.includes(role as Role)) {
      throw new UsageError(`--role must be one of ${roles.join(', ')}.`);
    }
    const account = await createAccountStore({ database }).createAccount({
      name,
      role: role as Role,
    });
    return output(account, `Created service account ${account.id} (${account.role})\n`);
  },

  async 'accounts list'(values, database) {
    const page = pageOf(values);
    const accounts = await createAccountStore({ database }).listAccounts(page);
    return listOutput(
      accounts,
      (account) => {
        const state = account.disabledAt === null ? 'active' : 'disabled';
        const tokens = `${account.activeTokens} active token${account.activeTokens === 1 ? '' : 's'}`;
        return `${account.id}  ${account.role.padEnd(8)}  ${state.padEnd(8)}  ${tokens}  ${account.name}\n`;
      },
      page,
    );
  },

  async 'accounts disable'(values, database) {
    const { account, tokensRevoked } = await createAccountStore({ database }).disableAccount({
      accountId: required(values, 'account'),
    });
    return output(
      { ...account, tokensRevoked },
      `Disabled ${account.id}; ${tokensRevoked} token${tokensRevoked === 1 ? '' : 's'} revoked\n`,
    );
  },

  async 'tokens issue'(values, database) {
    const accountId = required(values, 'account');
    let ttlSeconds: number | undefined;
    if (values.ttl !== undefined) {
      ttlSeconds = /^[1-9]\d{0,15}$/.test(values.ttl) ? Number(values.ttl) : 0;
      if (ttlSeconds > MAX_TOKEN_TTL_SECONDS || ttlSeconds < 1) {
        throw new UsageError(
          `--ttl is a positive whole number of seconds, at most ${MAX_TOKEN_TTL_SECONDS} (ten years).`,
        );
      }
    }
    const issued = await createAccountStore({ database }).issueToken({
      accountId,
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
      ...(values.label === undefined ? {} : { label: values.label }),
    });
    const expiry =
      issued.expiresAt === null ? 'It does not expire' : `It expires at ${issued.expiresAt}`;
    return output(
      issued,
      `${issued.token}\n\nToken ${issued.id}. ${expiry}. This is the only time it is shown: ` +
        'store it now.\n',
    );
  },

  async 'tokens list'(values, database) {
    const page = pageOf(values);
    const tokens = await createAccountStore({ database }).listTokens(required(values, 'account'));
    return listOutput(tokens.slice(page.offset, page.offset + page.limit), tokenLine, page);
  },

  async 'tokens revoke'(values, database) {
    const token = await createAccountStore({ database }).revokeToken({
      tokenId: required(values, 'token'),
    });
    return output(token, `Revoked ${token.id}\n`);
  },

  async 'tokens roll'(values, database) {
    const tokenId = required(values, 'token');
    const graceText = values.grace ?? '24h';
    const graceSeconds = parseDuration(graceText, { max: MAX_ROLL_GRACE_SECONDS });
    if (graceSeconds === undefined) {
      throw new UsageError(
        '--grace is a duration such as 90s, 30m, 24h or 7d (digits and one unit), at most 30d.',
      );
    }
    const { issued, previous } = await createAccountStore({ database }).rollToken({
      tokenId,
      graceSeconds,
    });
    const expiry =
      issued.expiresAt === null ? 'It does not expire' : `It expires at ${issued.expiresAt}`;
    return output(
      { ...issued, previous },
      `${issued.token}\n\nToken ${issued.id} replaces ${previous.id}, which keeps working until ` +
        `${previous.expiresAt}. ${expiry}. This is the only time it is shown: store it now.\n`,
    );
  },
};

/** @internal The options each command of {@link accountCommands} takes. */
export const accountCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'accounts create': ['name', 'role'],
  'accounts list': PAGE_OPTIONS,
  'accounts disable': ['account'],
  'tokens issue': ['account', 'ttl', 'label'],
  'tokens list': ['account', ...PAGE_OPTIONS],
  'tokens revoke': ['token'],
  'tokens roll': ['token', 'grace'],
};
