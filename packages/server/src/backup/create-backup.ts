import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { create as createTar } from 'tar';
import type { Clock } from '../clock.js';
import { LOCK_FILE_NAME } from '../storage/data-directory-lock.js';
import { SYNCED_MARKER_FILE } from '../storage/data-directory-sync.js';
import type { Database } from '../storage/database.js';
import { whileCheckpointed } from '../storage/pglite-database.js';
import { appliedSchemaVersion } from '../stores/health-store.js';
import {
  BACKUP_DATA_FOLDER,
  BACKUP_FORMAT,
  BACKUP_MANIFEST_FILE,
  type BackupFile,
  type BackupManifest,
  serializeBackupManifest,
} from './backup-manifest.js';

/**
 * @internal The prefix of the folder, inside the data directory, where a backup copies the
 * database's files before it packs them; never itself copied.
 */
export const BACKUP_STAGING_PREFIX = '.followup-backup-';

/**
 * Files of a data directory that belong to the running process, not to the database: its lock,
 * its sync marker (a restored directory is synced file by file at its first open, as a new one
 * is), and PostgreSQL's `postmaster.pid` and `postmaster.opts`, which `pg_basebackup` leaves
 * out for the same reason. Sockets and symbolic links are never copied.
 */
const PROCESS_FILES = [LOCK_FILE_NAME, SYNCED_MARKER_FILE, 'postmaster.pid', 'postmaster.opts'];

/** Staging folders of the backups this process is making (several may run at once). */
const stagingInUse = new Set<string>();

/**
 * Removes the staging folders a killed process left in `dataDir`: this process holds the data
 * directory (its lock, or its server), so any it is not using is nobody's.
 */
async function removeAbandonedStaging(dataDir: string): Promise<void> {
  for (const name of await readdir(dataDir)) {
    const path = join(dataDir, name);
    if (name.startsWith(BACKUP_STAGING_PREFIX) && !stagingInUse.has(path)) {
      await rm(path, { recursive: true, force: true });
    }
  }
}

/** @internal Options of {@link createBackup}. */
export interface CreateBackupOptions {
  /** The open embedded database (from `openPGliteDatabase`) whose directory is `dataDir`. */
  database: Database;
  /** Its data directory. */
  dataDir: string;
  /**
   * Names at the top of the data directory not to copy, beside its lock and sync marker: the
   * operator channel's key file and socket, say.
   */
  excludedFiles?: readonly string[];
  /** Dates the manifest. */
  clock: Clock;
}

/** @internal A backup being packed. */
export interface BackupArchive {
  /** The `.tar.gz`: `followup-backup.json`, then `data/` with the data directory's files. */
  archive: Readable;
  /** The manifest it starts with. */
  manifest: BackupManifest;
}

/**
 * @internal Copies the embedded database's data directory while it serves, consistently: after a
 * `CHECKPOINT` and while no statement runs (queries wait, for as long as copying the files takes,
 * not packing them), every file is copied into a staging folder inside the data directory (on
 * the same file system, and writable wherever the server may write). Then, with queries running
 * again, it checksums the copies and packs them with their manifest into a gzipped tar stream;
 * the staging folder goes once the stream ends or fails (or, after a crash, at the next backup).
 */
export async function createBackup(options: CreateBackupOptions): Promise<BackupArchive> {
  const schemaVersion = await appliedSchemaVersion(options.database);
  const staging = join(
    options.dataDir,
    `${BACKUP_STAGING_PREFIX}${randomBytes(8).toString('hex')}`,
  );
  const excluded = new Set([...PROCESS_FILES, ...(options.excludedFiles ?? [])]);
  await removeAbandonedStaging(options.dataDir);
  stagingInUse.add(staging);
  const release = () => {
    stagingInUse.delete(staging);
    return rm(staging, { recursive: true, force: true });
  };
  try {
    await mkdir(join(staging, BACKUP_DATA_FOLDER), { recursive: true, mode: 0o700 });
    const directories: string[] = [];
    const copied: string[] = [];
    await whileCheckpointed(options.database, () =>
      copyTree({
        from: options.dataDir,
        to: join(staging, BACKUP_DATA_FOLDER),
        skip: (name) => excluded.has(name) || name.startsWith(BACKUP_STAGING_PREFIX),
        directories,
        files: copied,
      }),
    );
    const files: BackupFile[] = [];
    for (const path of copied) {
      files.push({ path, ...(await checksum(join(staging, BACKUP_DATA_FOLDER, path))) });
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      createdAt: new Date(options.clock.now()).toISOString(),
      schemaVersion,
      directories,
      files,
    };
    await writeFile(join(staging, BACKUP_MANIFEST_FILE), serializeBackupManifest(manifest), {
      mode: 0o600,
    });
    const pack = createTar({ gzip: true, portable: true, cwd: staging }, [
      BACKUP_MANIFEST_FILE,
      BACKUP_DATA_FOLDER,
    ]);
    const archive = Readable.from(pack);
    archive.once('close', () => {
      void release();
    });
    return { archive, manifest };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * Copies the directories and regular files under `from` into `to`, recording their paths
 * relative to `from`; `skip` names entries at the top to leave out.
 */
async function copyTree(options: {
  from: string;
  to: string;
  skip: (name: string) => boolean;
  directories: string[];
  files: string[];
}): Promise<void> {
  async function walk(relative: string): Promise<void> {
    const source = relative === '' ? options.from : join(options.from, relative);
    for (const entry of await readdir(source, { withFileTypes: true })) {
      if (relative === '' && options.skip(entry.name)) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        await mkdir(join(options.to, path), { mode: 0o700 });
        options.directories.push(path);
        await walk(path);
      } else if (entry.isFile()) {
        await copyFile(join(options.from, path), join(options.to, path));
        options.files.push(path);
      }
    }
  }
  await walk('');
}

/** The size and SHA-256 of a file. */
async function checksum(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}
