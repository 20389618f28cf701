import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import { FollowUpServerError } from '../errors.js';
import {
  BACKUP_DATA_FOLDER,
  BACKUP_MANIFEST_FILE,
  type BackupManifest,
  invalidBackup,
  isContainedPath,
  MAX_MANIFEST_BYTES,
  parseBackupManifest,
} from './backup-manifest.js';

/**
 * @internal The most data a restore writes by default, 64 GiB: far beyond what an embedded
 * database holds (use PostgreSQL for large data), and a bound on what a hostile archive makes
 * it write.
 */
export const MAX_RESTORE_BYTES = 64 * 1024 ** 3;

/** @internal Options of {@link restoreBackup}. */
export interface RestoreBackupOptions {
  /** The `.tar.gz` that `followup-server backup` wrote. */
  from: string;
  /** The data directory to create; it must not exist, or be empty. */
  dataDir: string;
  /** The schema version of this server's code: a backup of a newer one is refused. */
  codeSchemaVersion: number;
  /** The most bytes of data to write; more is refused. Defaults to {@link MAX_RESTORE_BYTES}. */
  maxBytes?: number;
}

/** The data directory's path of an archive entry (`data/base/1` → `base/1`), or undefined. */
function dataPath(entryPath: string): string | undefined {
  const prefix = `${BACKUP_DATA_FOLDER}/`;
  return entryPath.startsWith(prefix) ? entryPath.slice(prefix.length) : undefined;
}

/**
 * @internal Restores a backup into a new data directory. Refuses a `dataDir` that holds anything
 * (`data_directory_not_empty`), an archive that is corrupt, truncated, changed or not a backup
 * (`backup_invalid`: an entry with an absolute path or `..`, a symbolic or hard link or any entry
 * but files and directories, a file whose checksum or size differs from its manifest, or one the
 * manifest does not list), one whose schema is newer than the code (`backup_too_new`), and one
 * holding more than `maxBytes` (`backup_too_large`). It extracts into a new owner-only directory
 * beside `dataDir` (directories 0700, files 0600, as the server keeps its data directory), checks
 * everything, and only then renames it to `dataDir`: a refused restore leaves nothing behind.
 */
export async function restoreBackup(options: RestoreBackupOptions): Promise<BackupManifest> {
  await refuseNonEmptyDirectory(options.dataDir);
  const parent = dirname(options.dataDir);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  // mkdtemp makes it 0700: no other user sees the files, even before they are checked.
  const staging = await mkdtemp(join(parent, `.${basename(options.dataDir)}.restoring-`));
  try {
    const manifest = await extract(options, staging);
    try {
      await rename(staging, options.dataDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw notEmpty(options.dataDir);
      throw error;
    }
    return manifest;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

function notEmpty(dataDir: string): FollowUpServerError {
  return new FollowUpServerError({
    code: 'data_directory_not_empty',
    message: `${dataDir} is not empty: restore into a new or empty directory, never over data.`,
  });
}

async function refuseNonEmptyDirectory(dataDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw notEmpty(dataDir);
    throw error;
  }
  if (entries.length > 0) throw notEmpty(dataDir);
}

/** Reads the archive entry by entry into `staging`, checking each; resolves with the manifest. */
async function extract(options: RestoreBackupOptions, staging: string): Promise<BackupManifest> {
  const maxBytes = options.maxBytes ?? MAX_RESTORE_BYTES;
  let manifest: BackupManifest | undefined;
  let expected = new Map<string, { size: number; sha256: string }>();
  const written = new Set<string>();
  let total = 0;

  async function readManifest(entry: ReadEntry): Promise<void> {
    if (entry.type !== 'File' || entry.path !== BACKUP_MANIFEST_FILE) {
      throw invalidBackup(`it does not start with ${BACKUP_MANIFEST_FILE}`);
    }
    if (entry.size > MAX_MANIFEST_BYTES) throw invalidBackup(`its manifest is too large`);
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const parsed = parseBackupManifest(Buffer.concat(chunks).toString('utf8'));
    if (parsed.schemaVersion > options.codeSchemaVersion) {
      throw new FollowUpServerError({
        code: 'backup_too_new',
        message:
          `The backup has schema version ${parsed.schemaVersion}, newer than this server's ` +
          `${options.codeSchemaVersion}: restore it with the release that made it, or a later one.`,
      });
    }
    const size = parsed.files.reduce((sum, file) => sum + file.size, 0);
    if (size > maxBytes) throw tooLarge(maxBytes);
    expected = new Map(parsed.files.map((file) => [file.path, file]));
    manifest = parsed;
  }

  async function readEntry(entry: ReadEntry): Promise<void> {
    if (manifest === undefined) return readManifest(entry);
    const isDirectory = entry.type === 'Directory';
    const entryPath = isDirectory ? entry.path.replace(/\/$/, '') : entry.path;
    if (entry.type !== 'File' && !isDirectory) {
      throw invalidBackup(`it holds ${entryPath}, a ${entry.type} (only files and directories)`);
    }
    if (!isContainedPath(entryPath)) {
      throw invalidBackup(`it holds ${JSON.stringify(entryPath)}, a path outside the data`);
    }
    if (isDirectory && entryPath === BACKUP_DATA_FOLDER) {
      entry.resume();
      return;
    }
    const path = dataPath(entryPath);
    if (path === undefined) throw invalidBackup(`it holds ${entryPath}, outside its data folder`);
    if (isDirectory) {
      await mkdir(join(staging, path), { recursive: true, mode: 0o700 });
      entry.resume();
      return;
    }
    const listed = expected.get(path);
    if (listed === undefined || written.has(path)) {
      throw invalidBackup(`it holds ${path}, which its manifest does not list once`);
    }
    written.add(path);
    await mkdir(dirname(join(staging, path)), { recursive: true, mode: 0o700 });
    const hash = createHash('sha256');
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        total += chunk.length;
        if (total > maxBytes) return callback(tooLarge(maxBytes));
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    await pipeline(
      entry,
      counter,
      createWriteStream(join(staging, path), { flags: 'wx', mode: 0o600 }),
    );
    if (size !== listed.size || hash.digest('hex') !== listed.sha256) {
      throw invalidBackup(`${path} differs from its checksum in the manifest`);
    }
  }

  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const input = createReadStream(options.from);
    // The bound on what is written is maxBytes; PostgreSQL's empty pages compress far beyond
    // tar's default ratio of 1000.
    const parser = new Parser({ strict: true, maxDecompressionRatio: 1_000_000 });
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      input.destroy();
      reject(error);
    };
    // One entry at a time, in order: the manifest is read before any data.
    let previous: Promise<void> = Promise.resolve();
    parser.on('entry', (entry: ReadEntry) => {
      previous = previous.then(async () => {
        if (failed) entry.resume();
        else await readEntry(entry);
      });
      previous.catch((error: unknown) => {
        entry.resume();
        fail(error);
      });
    });
    parser.on('error', (error: Error) => fail(invalidBackup(describeTarError(error), error)));
    parser.on('end', () => {
      previous.then(resolve, fail);
    });
    input.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      fail(
        code === 'ENOENT'
          ? new FollowUpServerError({
              code: 'backup_missing',
              message: `No backup at ${options.from}.`,
            })
          : error,
      );
    });
    input.pipe(parser as unknown as NodeJS.WritableStream);
  });

  if (manifest === undefined) throw invalidBackup('it is empty');
  const missing = [...expected.keys()].filter((path) => !written.has(path));
  if (missing.length > 0) {
    throw invalidBackup(`it lacks ${missing.length} of the files its manifest lists`);
  }
  for (const directory of (manifest as BackupManifest).directories) {
    const found = await stat(join(staging, directory)).catch(() => undefined);
    if (!found?.isDirectory()) throw invalidBackup(`it lacks the directory ${directory}`);
  }
  return manifest;
}

function tooLarge(maxBytes: number): FollowUpServerError {
  return new FollowUpServerError({
    code: 'backup_too_large',
    message: `The backup holds more than ${maxBytes} bytes of data, the most a restore writes.`,
  });
}

/** What a tar or gzip failure says of the file, in a few words. */
function describeTarError(error: Error): string {
  const message = error.message;
  if (/unexpected end|truncated/i.test(message)) return 'it is truncated';
  return `it is corrupt (${message})`;
}
