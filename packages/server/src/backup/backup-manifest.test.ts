import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FollowUpServerError } from '../errors.js';
import {
  BACKUP_FORMAT,
  type BackupManifest,
  isContainedPath,
  parseBackupManifest,
  serializeBackupManifest,
} from './backup-manifest.js';

const segment = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((text) => !/[/\\\0]/.test(text) && text !== '.' && text !== '..');
const containedPath = fc
  .array(segment, { minLength: 1, maxLength: 5 })
  .map((segments) => segments.join('/'))
  .filter((path) => !/^[A-Za-z]:/.test(path));

const manifest: fc.Arbitrary<BackupManifest> = fc
  .record({
    createdAt: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString()),
    schemaVersion: fc.integer({ min: 0, max: 1_000_000 }),
    directories: fc.uniqueArray(containedPath, { maxLength: 5 }),
    files: fc.uniqueArray(
      fc.record({
        path: containedPath,
        size: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
      }),
      { maxLength: 5, selector: (file) => file.path },
    ),
  })
  .filter(({ directories, files }) => !files.some((file) => directories.includes(file.path)))
  .map((fields) => ({ format: BACKUP_FORMAT, ...fields }));

function refusal(text: string): unknown {
  try {
    parseBackupManifest(text);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the backup manifest', () => {
  it('reads back every manifest it writes', () => {
    fc.assert(
      fc.property(manifest, (written) => {
        expect(parseBackupManifest(serializeBackupManifest(written))).toEqual(written);
      }),
    );
  });

  it('refuses any other text with backup_invalid, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          manifest.map((m) => JSON.stringify({ ...m, extra: 1 })),
        ),
        (text) => {
          const error = refusal(text);
          expect(FollowUpServerError.isInstance(error)).toBe(true);
          expect((error as FollowUpServerError).code).toBe('backup_invalid');
        },
      ),
    );
  });

  it('refuses a manifest naming a path that leaves the data, or one path twice', () => {
    const escaping = fc.oneof(
      containedPath.map((path) => `/${path}`),
      containedPath.map((path) => `${path}/../../x`),
      containedPath.map((path) => `../${path}`),
      containedPath.map((path) => `C:/${path}`),
      containedPath.map((path) => `${path}\\..\\x`),
      containedPath.map((path) => `${path}//x`),
      fc.constant(''),
    );
    fc.assert(
      fc.property(manifest, escaping, (valid, path) => {
        expect(isContainedPath(path)).toBe(false);
        const bad = { ...valid, directories: [...valid.directories, path] };
        expect(refusal(JSON.stringify(bad))).toMatchObject({ code: 'backup_invalid' });
      }),
    );
    fc.assert(
      fc.property(manifest, containedPath, (valid, path) => {
        const twice = { ...valid, directories: [path, path], files: [] };
        expect((refusal(JSON.stringify(twice)) as Error).message).toContain('twice');
      }),
    );
  });

  it('accepts every relative path that stays inside', () => {
    fc.assert(
      fc.property(containedPath, (path) => {
        expect(isContainedPath(path)).toBe(true);
      }),
    );
  });
});
