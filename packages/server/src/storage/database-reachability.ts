import type { Database, Queryable } from './database.js';

// Errors of a database that cannot be reached, as `pg` and Node report them: the socket's own
// (refused, reset, timed out, no route, no such host), PostgreSQL's connection exceptions (SQLSTATE
// class 08) and its shutdown codes (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
// cannot_connect_now, sent while it stops or starts).
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
]);
// What `pg` throws, without a code, for a connection that ended under a query.
const unreachableMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/**
 * @internal Whether an error says that the database cannot be reached (rather than that a
 * statement failed): a request that fails with one answers 503 `unavailable` with `Retry-After`.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (unreachableCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
    return true;
  }
  return typeof message === 'string' && unreachableMessages.test(message);
}

/** @internal Told when the database stops answering, and when it answers again. */
export interface ReachabilityListener {
  /** The first failure of an outage, with its error. */
  onUnreachable: (error: unknown) => void;
  /** The first success after an outage. */
  onReachable: () => void;
  /**
   * A listening connection (`LISTEN` on `channel`) was lost, or could not be made: once, until
   * it is back, however many attempts to make it again fail meanwhile.
   */
  onListenerLost?: (channel: string, error: unknown) => void;
  /** A listening connection that was lost listens again. */
  onListenerBack?: (channel: string) => void;
}

const watched = Symbol.for('followup.reachabilityWatched');
const underlying = Symbol.for('followup.underlyingDatabase');

/**
 * @internal The database a watch of {@link watchReachability} is over (the database itself when
 * it is not one): what code that keys state by database (the token caches) keys it by, so that a
 * change through the database and one through its watch find the same entry.
 */
export function underlyingDatabase(database: Database): Database {
  return (database as { [underlying]?: Database })[underlying] ?? database;
}

/**
 * @internal The database, watched: the first statement that fails because the database cannot
 * be reached tells `onUnreachable`, the first that succeeds afterwards `onReachable`, so that an
 * outage is logged once when it begins and once when it ends, not once per request. A database
 * already watched is returned as it is (`start` watches the one it shares with the worker).
 */
export function watchReachability(database: Database, listener: ReachabilityListener): Database {
  if ((database as { [watched]?: boolean })[watched]) return database;
  let reachable = true;
  const observe = <T>(work: Promise<T>): Promise<T> =>
    work.then(
      (value) => {
        if (!reachable) {
          reachable = true;
          listener.onReachable();
        }
        return value;
      },
      (error: unknown) => {
        if (reachable && isDatabaseUnreachable(error)) {
          reachable = false;
          listener.onUnreachable(error);
        }
        throw error;
      },
    );
  const watchedDatabase: Database & { [watched]: boolean; [underlying]: Database } = {
    [watched]: true,
    [underlying]: database,
    driver: database.driver,
    query: (sql, params) => observe(database.query(sql, params)),
    transaction: <T>(callback: (transaction: Queryable) => Promise<T>) =>
      observe(database.transaction(callback)),
    queuedQueries: () => database.queuedQueries?.() ?? 0,
    close: () => database.close(),
  };
  if (database.listen) {
    const listen = database.listen.bind(database);
    watchedDatabase.listen = (channel, onNotify, options = {}) => {
      // Whether this listener was lost: its first connection coming up is no news.
      let lost = false;
      return listen(channel, onNotify, {
        ...options,
        onListening(listening, error) {
          options.onListening?.(listening, error);
          if (!listening && !lost) {
            lost = true;
            listener.onListenerLost?.(channel, error);
          } else if (listening && lost) {
            lost = false;
            listener.onListenerBack?.(channel);
          }
        },
      });
    };
  }
  return watchedDatabase;
}

/** @internal The lines {@link watchDatabaseOutages} writes. */
export interface OutageLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  info(message: string): void;
}

/** The SQLSTATE or socket error code of an error, never its message (which may quote SQL). */
function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null | undefined)?.code ?? null;
}

/**
 * @internal A PostgreSQL database watched by {@link watchReachability} for `logger` (read when
 * a line is written; `undefined` writes nothing): an error line when it stops answering (with
 * the error's code, never its message, which may quote a statement), an info line when it
 * answers again; and for each listening connection (the delivery worker's wake-ups, the token
 * cache's revocations) a warning when it is lost and an info line when it listens again.
 * PGlite, in this process, cannot become unreachable: returned as it is.
 */
export function watchDatabaseOutages(
  database: Database,
  logger: () => OutageLogger | undefined,
): Database {
  if (database.driver !== 'postgres') return database;
  return watchReachability(database, {
    onUnreachable: (error) =>
      logger()?.error(
        { code: codeOf(error) },
        'database unreachable: requests answer 503 until it is back',
      ),
    onReachable: () => logger()?.info('database reachable again'),
    onListenerLost: (channel, error) =>
      logger()?.warn({ channel, code: codeOf(error) }, 'notification listener lost: reconnecting'),
    onListenerBack: (channel) => logger()?.info({ channel }, 'notification listener back'),
  });
}
