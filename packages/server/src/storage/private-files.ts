import fs from 'node:fs';
import { join, sep } from 'node:path';
import { FollowUpServerError } from '../errors.js';

// Directories whose files must stay private to this user: every mode given to a file or a
// directory created or changed under them loses its group and other bits.
const privateRoots = new Set<string>();

function isUnderPrivateRoot(path: unknown): boolean {
  if (typeof path !== 'string') return false;
  for (const root of privateRoots) {
    if (path === root || path.startsWith(root + sep)) return true;
  }
  return false;
}

function ownerOnly(path: unknown, mode: unknown): unknown {
  return isUnderPrivateRoot(path) && typeof mode === 'number' ? mode & 0o700 : mode;
}

let installed = false;

// PGlite's file system (Emscripten's NODEFS) creates files with the modes PostgreSQL asks for
// inside WebAssembly and then sets them with chmod, which the umask does not narrow: 0666 for
// most of them, write-ahead log included. Narrowing the modes where node:fs receives them keeps
// every file private from its first byte, whatever the umask.
function installModeGuard(): void {
  if (installed) return;
  installed = true;
  const original = {
    chmodSync: fs.chmodSync,
    mkdirSync: fs.mkdirSync,
    openSync: fs.openSync,
    writeFileSync: fs.writeFileSync,
  };
  fs.chmodSync = ((path: fs.PathLike, mode: fs.Mode) =>
    original.chmodSync(path, ownerOnly(path, mode) as fs.Mode)) as typeof fs.chmodSync;
  fs.mkdirSync = ((path: fs.PathLike, options?: fs.Mode | fs.MakeDirectoryOptions | null) => {
    if (typeof options === 'number')
      return original.mkdirSync(path, ownerOnly(path, options) as number);
    if (options && typeof options === 'object' && options.mode !== undefined) {
      return original.mkdirSync(path, {
        ...options,
        mode: ownerOnly(path, options.mode) as number,
      });
    }
    return original.mkdirSync(path, options as fs.MakeDirectoryOptions);
  }) as typeof fs.mkdirSync;
  fs.openSync = ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode | null) =>
    original.openSync(path, flags ?? 'r', ownerOnly(path, mode) as fs.Mode)) as typeof fs.openSync;
  fs.writeFileSync = ((file: fs.PathOrFileDescriptor, data: never, options?: never) => {
    const withMode = options as fs.WriteFileOptions | undefined;
    if (withMode && typeof withMode === 'object' && withMode.mode !== undefined) {
      return original.writeFileSync(file, data, {
        ...withMode,
        mode: ownerOnly(file, withMode.mode) as fs.Mode,
      });
    }
    return original.writeFileSync(file, data, options);
  }) as typeof fs.writeFileSync;
}

/** Makes every file and directory under `dir` owner-only (0600 / 0700), recursively. */
function tightenTree(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) tightenTree(path);
    else fs.chmodSync(path, fs.statSync(path).mode & 0o600);
  }
}

/**
 * @internal Keeps a data directory private to this user: refuses a directory other users can
 * write (they could have planted or changed files), makes the directory 0700 and every file in
 * it 0600 (also those left by an earlier release), and from then on narrows every mode given
 * under it. Returns the function that stops guarding it.
 */
export function keepDirectoryPrivate(dir: string): () => void {
  const stat = fs.statSync(dir);
  const uid = process.getuid?.();
  if ((stat.mode & 0o022) !== 0 || (uid !== undefined && stat.uid !== uid)) {
    throw new FollowUpServerError({
      code: 'data_directory_insecure',
      message:
        `The data directory ${dir} can be written by other users (mode ` +
        `${(stat.mode & 0o777).toString(8)}) or belongs to another user: its files hold token ` +
        'hashes and signing secrets. Make it yours alone (chown, then chmod 700) or use another.',
    });
  }
  installModeGuard();
  privateRoots.add(dir);
  tightenTree(dir);
  return () => {
    privateRoots.delete(dir);
  };
}
