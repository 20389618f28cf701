import { z } from 'zod';
import { FollowUpServerError } from '../errors.js';

/**
 * @internal The manifest's name in a backup archive: its first entry, before the data, so that a
 * restore knows what to expect (and refuses a newer schema) before it writes anything.
 */
export const BACKUP_MANIFEST_FILE = 'followup-backup.json';

/** @internal The archive's folder holding the data directory's files. */
export const BACKUP_DATA_FOLDER = 'data';

/** @internal What a manifest says its archive is. */
export const BACKUP_FORMAT = 'followup-backup/1';

/** @internal The largest manifest a restore reads (about 100,000 files' entries). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** @internal One file of the data directory, as the backup copied it. */
export interface BackupFile {
  /** Its path in the data directory, `/`-separated, relative. */
  path: string;
  /** Its size in bytes. */
  size: number;
  /** The SHA-256 of its content, lowercase hex. */
  sha256: string;
}

/** @internal What `followup-backup.json` says of the archive it opens. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** When the copy was taken (ISO 8601). */
  createdAt: string;
  /** The newest migration applied to the copied database (`schema_migrations`). */
  schemaVersion: number;
  /** Every directory of the data directory, empty ones included (PostgreSQL needs them). */
  directories: string[];
  /** Every file of the data directory, with its size and checksum. */
  files: BackupFile[];
}

/**
 * @internal Whether `path` is a relative, `/`-separated path that stays inside the folder it is
 * read in: no leading `/`, no drive letter or backslash, no `.` or `..` or empty segment, no
 * NUL. An archive entry or a manifest path that is not is refused, never rewritten.
 */
export function isContainedPath(path: string): boolean {
  if (path.length === 0 || path.length > 4096) return false;
  if (path.includes('\\') || path.includes('\0') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

const containedPath = z.string().refine(isContainedPath, 'is not a relative path inside the data');

const manifestSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  createdAt: z.iso.datetime({ offset: true }),
  schemaVersion: z.number().int().min(0).max(1_000_000),
  directories: z.array(containedPath).max(1_000_000),
  files: z
    .array(
      z.strictObject({
        path: containedPath,
        size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'is not a lowercase SHA-256'),
      }),
    )
    .max(1_000_000),
});

/** @internal The manifest as the archive stores it. */
export function serializeBackupManifest(manifest: BackupManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * @internal Reads `followup-backup.json`; throws `backup_invalid` saying what is wrong with it
 * (not JSON, another format, a path that leaves the data, a file named twice), never anything
 * else.
 */
export function parseBackupManifest(text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidBackup(`its ${BACKUP_MANIFEST_FILE} is not JSON`);
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the manifest';
    throw invalidBackup(`its ${BACKUP_MANIFEST_FILE} is not one (${where}: ${issue?.message})`);
  }
  const seen = new Set<string>();
  for (const path of [...parsed.data.directories, ...parsed.data.files.map((file) => file.path)]) {
    if (seen.has(path)) throw invalidBackup(`its ${BACKUP_MANIFEST_FILE} names ${path} twice`);
    seen.add(path);
  }
  return parsed.data as BackupManifest;
}

/** @internal `backup_invalid`: the archive is not a whole, unchanged FollowUp backup. */
export function invalidBackup(reason: string, cause?: unknown): FollowUpServerError {
  return new FollowUpServerError({
    code: 'backup_invalid',
    message: `The file is not a complete FollowUp backup: ${reason}. Nothing was restored.`,
    ...(cause === undefined ? {} : { cause }),
  });
}
