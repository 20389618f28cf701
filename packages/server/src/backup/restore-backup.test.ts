import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  appendFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create as createTar, extract as extractTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMigratedDataDirectory } from '../../test/support/pglite-template.js';
import { FollowUpServerError } from '../errors.js';
import { SCHEMA_VERSION } from '../storage/migrations/index.js';
import { openPGliteDatabase } from '../storage/pglite-database.js';
import { BACKUP_MANIFEST_FILE, parseBackupManifest } from './backup-manifest.js';
import { createBackup } from './create-backup.js';
import { restoreBackup } from './restore-backup.js';

// The refusals of a restore, each on an archive made from a real backup: whatever is wrong with
// the file, the restore says so and leaves nothing behind, neither the data directory nor its
// staging folder beside it.
describe('restoreBackup', () => {
  let scratch: string;
  let good: string;
  let source: string;
  let crafted = 0;
  const fixedClock = { now: () => Date.parse('2026-11-27T10:00:00.000Z') };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'followup-restore-'));
    source = join(scratch, 'source');
    await writeMigratedDataDirectory(source);
    const database = await openPGliteDatabase({ dataDir: source, unsafeNoFsync: true });
    try {
      await database.query('CREATE TABLE backup_probe (value text)');
      await database.query('INSERT INTO backup_probe VALUES ($1)', ['kept']);
      // What a backup killed half-way leaves: the next one removes it, and never copies it.
      await mkdir(join(source, '.followup-backup-abandoned', 'data'), { recursive: true });
      await writeFile(join(source, '.followup-backup-abandoned', 'data', 'PG_VERSION'), '17');
      good = join(scratch, 'good.tar.gz');
      const { archive } = await createBackup({ database, dataDir: source, clock: fixedClock });
      await pipeline(archive, createWriteStream(good));
    } finally {
      await database.close();
    }
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** A new directory under the scratch folder, and a target path inside it. */
  async function place(): Promise<{ parent: string; dataDir: string }> {
    const parent = await mkdtemp(join(scratch, 'target-'));
    return { parent, dataDir: join(parent, 'data') };
  }

  /** Restores `from` into a new place, expecting `code`; checks nothing was left there. */
  async function refused(
    from: string,
    code: string,
    options: { maxBytes?: number; codeSchemaVersion?: number } = {},
  ): Promise<string> {
    const { parent, dataDir } = await place();
    const error = await restoreBackup({
      from,
      dataDir,
      codeSchemaVersion: options.codeSchemaVersion ?? SCHEMA_VERSION,
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    }).catch((caught: unknown) => caught);
    expect(FollowUpServerError.isInstance(error)).toBe(true);
    expect((error as FollowUpServerError).code).toBe(code);
    expect(await readdir(parent)).toEqual([]);
    return (error as Error).message;
  }

  /** The good archive unpacked into a new folder, to make a bad one from. */
  async function unpacked(): Promise<string> {
    const folder = await mkdtemp(join(scratch, 'unpacked-'));
    await extractTar({ file: good, cwd: folder });
    return folder;
  }

  async function pack(folder: string, entries: string[], preservePaths = false): Promise<string> {
    crafted++;
    const file = join(scratch, `crafted-${crafted}.tar.gz`);
    await createTar({ file, gzip: true, portable: true, cwd: folder, preservePaths }, entries);
    return file;
  }

  it('restores a backup with every file as it was, owner-only, the database readable', async () => {
    const { dataDir } = await place();
    const manifest = await restoreBackup({
      from: good,
      dataDir,
      codeSchemaVersion: SCHEMA_VERSION,
    });
    expect(manifest.schemaVersion).toBe(SCHEMA_VERSION);
    expect(manifest.createdAt).toBe('2026-11-27T10:00:00.000Z');
    for (const file of manifest.files) {
      const content = await readFile(join(dataDir, file.path));
      expect(createHash('sha256').update(content).digest('hex')).toBe(file.sha256);
      expect((await stat(join(dataDir, file.path))).mode & 0o777).toBe(0o600);
    }
    for (const directory of ['', ...manifest.directories]) {
      expect((await stat(join(dataDir, directory))).mode & 0o777).toBe(0o700);
    }
    const database = await openPGliteDatabase({ dataDir, unsafeNoFsync: true });
    try {
      const { rows } = await database.query<{ value: string }>('SELECT value FROM backup_probe');
      expect(rows).toEqual([{ value: 'kept' }]);
    } finally {
      await database.close();
    }
  });

  it('refuses a directory that holds anything, and leaves it as it was', async () => {
    const { parent, dataDir } = await place();
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'notes.txt'), 'mine');
    const error = await restoreBackup({
      from: good,
      dataDir,
      codeSchemaVersion: SCHEMA_VERSION,
    }).catch((caught: unknown) => caught);
    expect((error as FollowUpServerError).code).toBe('data_directory_not_empty');
    expect(await readdir(dataDir)).toEqual(['notes.txt']);
    expect(await readdir(parent)).toEqual(['data']);
  });

  it('restores into an empty directory that exists', async () => {
    const { dataDir } = await place();
    await mkdir(dataDir, { mode: 0o700 });
    await restoreBackup({ from: good, dataDir, codeSchemaVersion: SCHEMA_VERSION });
    expect(await readdir(dataDir)).toContain('PG_VERSION');
  });

  it('refuses a truncated archive', async () => {
    const bytes = await readFile(good);
    const truncated = join(scratch, 'truncated.tar.gz');
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await refused(truncated, 'backup_invalid')).toContain('truncated');
  });

  it('refuses an archive with a byte changed', async () => {
    const bytes = Buffer.from(await readFile(good));
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
    const corrupt = join(scratch, 'corrupt.tar.gz');
    await writeFile(corrupt, bytes);
    expect(await refused(corrupt, 'backup_invalid')).toContain('not a complete FollowUp backup');
  });

  it('refuses a file whose content differs from its checksum in the manifest', async () => {
    const folder = await unpacked();
    await appendFile(join(folder, 'data', 'PG_VERSION'), 'changed');
    const changed = await pack(folder, [BACKUP_MANIFEST_FILE, 'data']);
    expect(await refused(changed, 'backup_invalid')).toContain(
      'PG_VERSION differs from its checksum',
    );
  });

  it('refuses an archive that lacks a file its manifest lists', async () => {
    const folder = await unpacked();
    await rm(join(folder, 'data', 'PG_VERSION'));
    const lacking = await pack(folder, [BACKUP_MANIFEST_FILE, 'data']);
    expect(await refused(lacking, 'backup_invalid')).toContain('lacks 1 of the files');
  });

  it('refuses an archive that does not start with its manifest', async () => {
    const folder = await unpacked();
    const unlisted = await pack(folder, ['data', BACKUP_MANIFEST_FILE]);
    expect(await refused(unlisted, 'backup_invalid')).toContain('does not start with');
  });

  it('refuses a backup of a newer schema than the code, and allows an older one', async () => {
    const message = await refused(good, 'backup_too_new', {
      codeSchemaVersion: SCHEMA_VERSION - 1,
    });
    expect(message).toContain(`schema version ${SCHEMA_VERSION}, newer than`);
    const { dataDir } = await place();
    const manifest = await restoreBackup({
      from: good,
      dataDir,
      codeSchemaVersion: SCHEMA_VERSION + 1,
    });
    expect(manifest.schemaVersion).toBe(SCHEMA_VERSION);
  });

  it('refuses more data than its bound', async () => {
    expect(await refused(good, 'backup_too_large', { maxBytes: 1000 })).toContain(
      'more than 1000 bytes',
    );
  });

  it('refuses entries with an absolute path or .., and symbolic links', async () => {
    const folder = await unpacked();
    const outside = join(scratch, 'outside.txt');
    await writeFile(outside, 'planted');
    const absolute = await pack(folder, [BACKUP_MANIFEST_FILE, 'data', outside], true);
    expect(await refused(absolute, 'backup_invalid')).toContain('a path outside the data');

    const dotDot = await pack(folder, [BACKUP_MANIFEST_FILE, 'data', '../outside.txt'], true);
    expect(await refused(dotDot, 'backup_invalid')).toContain('"../outside.txt"');

    await symlink('/etc/passwd', join(folder, 'data', 'passwd'));
    const linked = await pack(folder, [BACKUP_MANIFEST_FILE, 'data']);
    expect(await refused(linked, 'backup_invalid')).toContain('data/passwd, a SymbolicLink');
    expect(await readFile(outside, 'utf8')).toBe('planted');
  });

  it('refuses a file that is not a gzipped tar at all, or is missing', async () => {
    const text = join(scratch, 'notes.tar.gz');
    await writeFile(text, 'not an archive');
    await refused(text, 'backup_invalid');
    await refused(join(scratch, 'nothing-here.tar.gz'), 'backup_missing');
  });

  it('writes a manifest that the parser reads back, listing the files of the data directory', async () => {
    const folder = await unpacked();
    const manifest = parseBackupManifest(
      await readFile(join(folder, BACKUP_MANIFEST_FILE), 'utf8'),
    );
    const sourceFiles = (await readdir(source, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(source.length + 1))
      .filter((path) => !path.startsWith('followup-server.'));
    expect(manifest.files.map((file) => file.path).sort()).toEqual(sourceFiles.sort());
    // The staging folder a killed backup left is gone, and was never copied.
    expect((await readdir(source)).filter((name) => name.startsWith('.followup-'))).toEqual([]);
    expect(manifest.directories.filter((path) => path.startsWith('.followup-'))).toEqual([]);
  });
});
