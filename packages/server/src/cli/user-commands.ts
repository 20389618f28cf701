import { LIST_LIMITS } from '@followup/sdk';
import { systemClock } from '../clock.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import {
  changeUserRole,
  disableUser,
  inviteUser,
  listUsers,
  parseRole,
  revokeUserSessions,
  type UserActionContext,
  type UserInfo,
} from '../users/user-actions.js';
import type { OperatorCommand, OperatorOutput } from './operator-command.js';
import { type CliOptions, type OptionName, UsageError } from './usage.js';

/** @internal Where sign-in links point without `--public-url`: `start`'s default address. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:3000';

function operatorContext(database: Database): UserActionContext {
  return {
    database,
    clock: systemClock,
    newId: createIdGenerator({ now: () => systemClock.now() }),
    actor: { type: 'operator' },
  };
}

function requiredValue(values: CliOptions, name: 'email' | 'role' | 'user'): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

/** @internal Checks `--public-url`: an http: or https: origin (no path, query or credentials). */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--public-url is not an absolute URL: ${text}`);
  }
  // The server serves its pages at / : a path prefix would break their links.
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new UsageError(
      '--public-url is an http: or https: origin, such as https://crm.example.org.',
    );
  }
  return url.origin;
}

function userLine(user: UserInfo): string {
  const sessions = user.sessions === 1 ? '1 session' : `${user.sessions} sessions`;
  return `${user.id}  ${user.role.padEnd(8)}  ${user.state.padEnd(8)}  ${sessions}  ${user.email}  ${user.name}\n`;
}

function output(json: unknown, text: string): OperatorOutput {
  return { json, text };
}

/**
 * @internal `users …`: the operator's side of the Users page, through the same action functions
 * (audited with actor `operator`).
 */
export const userCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'users invite'(values, database) {
    const email = requiredValue(values, 'email');
    const role = requiredValue(values, 'role');
    try {
      parseRole(role);
    } catch {
      throw new UsageError('--role must be one of ADMIN, MANAGER, AGENT, READONLY.');
    }
    const publicUrl = parsePublicUrl(values['public-url'] ?? DEFAULT_PUBLIC_URL);
    const invitation = await inviteUser(operatorContext(database), {
      email,
      role,
      publicUrl,
      ...(values.name === undefined ? {} : { name: values.name }),
    });
    const { id, signInUrl, expiresAt } = invitation;
    return output(
      { id, email: invitation.email, role: invitation.role, signInUrl, expiresAt },
      `Invited ${invitation.email} (${invitation.role}) as ${id}. Their one-time sign-in link ` +
        `(shown once, valid until ${expiresAt}):\n  ${signInUrl}\n`,
    );
  },

  async 'users list'(_values, database) {
    // Every user, page after page: an operator's list never stops short.
    const users: UserInfo[] = [];
    for (;;) {
      const page = await listUsers(database, {
        limit: LIST_LIMITS.maxLimit,
        offset: users.length,
      });
      users.push(...page);
      if (page.length < LIST_LIMITS.maxLimit) break;
    }
    return output(users, users.length === 0 ? 'No users yet.\n' : users.map(userLine).join(''));
  },

  async 'users disable'(values, database) {
    const userId = requiredValue(values, 'user');
    const user = await disableUser(operatorContext(database), userId);
    return output(user, `Disabled ${user.id} (${user.email}); their sessions have ended\n`);
  },

  async 'users role'(values, database) {
    const userId = requiredValue(values, 'user');
    const role = requiredValue(values, 'role');
    try {
      parseRole(role);
    } catch {
      throw new UsageError('--role must be one of ADMIN, MANAGER, AGENT, READONLY.');
    }
    // The same action as the Users page and PATCH /api/users/:id: audited, sessions ended.
    const user = await changeUserRole(operatorContext(database), userId, role);
    return output(
      user,
      `${user.id} (${user.email}) is now ${user.role}; their sessions have ended\n`,
    );
  },

  async 'users sessions revoke'(values, database) {
    const userId = requiredValue(values, 'user');
    const result = await revokeUserSessions(operatorContext(database), userId);
    return output(
      result,
      `Ended ${result.sessionsEnded} session${result.sessionsEnded === 1 ? '' : 's'} of ${result.id}\n`,
    );
  },
};

/** @internal The options each `users …` command takes (see `operatorCommandOptions`). */
export const userCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'users invite': ['email', 'role', 'name', 'public-url'],
  'users list': [],
  'users disable': ['user'],
  'users role': ['user', 'role'],
  'users sessions revoke': ['user'],
};
