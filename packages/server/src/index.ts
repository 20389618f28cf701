/**
 * The reference server of the FollowUp service interface: build it with `buildServer`, store it
 * in embedded PGlite or PostgreSQL, and manage service accounts and tokens.
 *
 * @packageDocumentation
 */

export { type Clock, systemClock } from './clock.js';
export { FollowUpServerError, type FollowUpServerErrorOptions } from './errors.js';
export {
  createIdGenerator,
  type IdGenerator,
  type IdGeneratorOptions,
  type IdPrefix,
} from './ids.js';
export {
  type DataDirectoryLock,
  LOCK_FILE_NAME,
  type LockDataDirectoryOptions,
  lockDataDirectory,
} from './storage/data-directory-lock.js';
export type {
  Database,
  DatabaseDriver,
  Queryable,
  QueryResult,
} from './storage/database.js';
export { type MigrateResult, migrate } from './storage/migrate.js';
export { openPGliteDatabase, type PGliteDatabaseOptions } from './storage/pglite-database.js';
export { openPostgresDatabase, type PostgresDatabaseOptions } from './storage/postgres-database.js';
