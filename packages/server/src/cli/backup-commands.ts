import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { createBackup } from '../backup/create-backup.js';
import { restoreBackup } from '../backup/restore-backup.js';
import { systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { SCHEMA_VERSION } from '../storage/migrations/index.js';
import { openPGliteDatabase } from '../storage/pglite-database.js';
import type { CliIo } from './cli-io.js';
import { holdsDatabase, resolveDataDirectory } from './data-directory.js';
import { OPERATOR_CHANNEL_FILES, requestOperatorBackup } from './operator-channel.js';
import { type OperatorOutput, output } from './operator-command.js';
import { unsafeNoFsync } from './start-option-parsers.js';
import { type CliOptions, type OptionName, UsageError } from './usage.js';

/** @internal The options `backup` takes beside the global ones. */
export const BACKUP_OPTIONS: readonly OptionName[] = ['out', 'force'];

/** @internal The options `restore` takes beside the global ones. */
export const RESTORE_OPTIONS: readonly OptionName[] = ['from'];

const USE_PG_DUMP =
  'backup and restore copy an embedded PGlite data directory; on PostgreSQL use pg_dump -Fc ' +
  'and pg_restore (see the server README, "Backups").';

function onPostgres(values: CliOptions, io: CliIo): boolean {
  return Boolean(io.database || values['database-url'] || io.env.DATABASE_URL);
}

/**
 * @internal `followup-server backup --out FILE [--force]`: a consistent copy of the embedded
 * database as one `.tar.gz` (mode 0600), made by the running server through its operator
 * channel, or here under the data directory's lock when none runs. Written to a temporary name
 * beside `FILE` and renamed once complete and synced; an existing `FILE` is kept unless
 * `--force`. Answers the file, its size, its SHA-256 and the schema version.
 */
export async function backupCommand(values: CliOptions, io: CliIo): Promise<OperatorOutput> {
  if (onPostgres(values, io)) throw new UsageError(USE_PG_DUMP);
  if (!values.out) throw new UsageError('--out is required: the .tar.gz file to write.');
  const file = resolve(values.out);
  if (!values.force && existsSync(file)) throw backupExists(file);
  const dataDir = resolveDataDirectory(values['data-dir'], io.env).path;
  if (!holdsDatabase(dataDir)) {
    throw new FollowUpServerError({
      code: 'data_directory_missing',
      message: `No database in ${dataDir}: name the server's data directory with --data-dir.`,
    });
  }
  let database: Awaited<ReturnType<typeof openPGliteDatabase>>;
  try {
    database = await openPGliteDatabase({ dataDir, unsafeNoFsync: unsafeNoFsync(values, io.env) });
  } catch (error) {
    if (!FollowUpServerError.isInstance(error) || error.code !== 'data_directory_locked') {
      throw error;
    }
    // A server runs on it: the process that owns the database copies it.
    const remote = await requestOperatorBackup(dataDir);
    const schemaVersion = Number(remote.headers['x-followup-schema-version']);
    return backupOutput(dataDir, schemaVersion, await writeArchive(remote, file, values.force));
  }
  try {
    const { archive, manifest } = await createBackup({
      database,
      dataDir,
      excludedFiles: OPERATOR_CHANNEL_FILES,
      clock: systemClock,
    });
    const written = await writeArchive(archive, file, values.force);
    return backupOutput(dataDir, manifest.schemaVersion, written);
  } finally {
    await database.close();
  }
}

function backupExists(file: string): FollowUpServerError {
  return new FollowUpServerError({
    code: 'backup_exists',
    message: `${file} exists: name another file, or pass --force to replace it.`,
  });
}

interface WrittenArchive {
  file: string;
  bytes: number;
  sha256: string;
}

function backupOutput(dataDir: string, schemaVersion: number, written: WrittenArchive) {
  return output(
    { ...written, schemaVersion },
    `Backed up ${dataDir} (schema version ${schemaVersion}) to ${written.file}\n` +
      `  ${written.bytes} bytes, SHA-256 ${written.sha256}\n`,
  );
}

/**
 * Writes `archive` to a new file beside `file` (created 0600, never widened), syncs it, and only
 * then gives it its name: a reader never sees half a backup under that name. Without `force`
 * the name is taken with `link`, which fails if it exists, so nothing is overwritten even when
 * the file appeared meanwhile.
 */
async function writeArchive(
  archive: Readable,
  file: string,
  force: boolean | undefined,
): Promise<WrittenArchive> {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    try {
      for await (const chunk of archive) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        await handle.write(chunk as Buffer);
      }
      if (!archive.readableEnded) throw new Error('The backup stream was cut short.');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (force) await rename(temporary, file);
    else {
      await link(temporary, file).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'EEXIST' ? backupExists(file) : error;
      });
      await unlink(temporary);
    }
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(file));
  return { file, bytes, sha256: hash.digest('hex') };
}

/** Makes a new name in `directory` durable (where a directory can be opened to sync it). */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * @internal `followup-server restore --from FILE --data-dir DIR`: checks and restores a backup
 * into a new or empty data directory (see `restoreBackup`), and says whether the next start
 * migrates it.
 */
export async function restoreCommand(values: CliOptions, io: CliIo): Promise<OperatorOutput> {
  if (onPostgres(values, io)) throw new UsageError(USE_PG_DUMP);
  if (!values.from) throw new UsageError('--from is required: the backup to restore.');
  if (!values['data-dir'] && !io.env.FOLLOWUP_DATA_DIR) {
    throw new UsageError('--data-dir is required: the new directory to restore into.');
  }
  const dataDir = resolveDataDirectory(values['data-dir'], io.env).path;
  const from = resolve(values.from);
  const manifest = await restoreBackup({ from, dataDir, codeSchemaVersion: SCHEMA_VERSION });
  const older = manifest.schemaVersion < SCHEMA_VERSION;
  return output(
    {
      dataDir,
      files: manifest.files.length,
      schemaVersion: manifest.schemaVersion,
      createdAt: manifest.createdAt,
      migrationsAtStart: older,
    },
    `Restored ${from} (taken ${manifest.createdAt}, ${manifest.files.length} files) into ${dataDir}\n` +
      (older
        ? `  schema version ${manifest.schemaVersion}; this server's is ${SCHEMA_VERSION}: ` +
          'the migrations run at its next start\n'
        : `  schema version ${manifest.schemaVersion}\n`),
  );
}
