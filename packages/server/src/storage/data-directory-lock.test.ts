import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FollowUpServerError } from '../errors.js';
import { LOCK_FILE_NAME, linuxProcessIdentity, lockDataDirectory } from './data-directory-lock.js';

describe('lockDataDirectory', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'followup-lock-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes our pid into the lock file and removes it on release', async () => {
    const lock = await lockDataDirectory(dataDir, { pid: 4242 });
    expect(lock.path).toBe(join(dataDir, LOCK_FILE_NAME));
    expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe('4242');
    await lock.release();
    await expect(readFile(lock.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a second lock while the holder runs, naming the directory and the pid', async () => {
    const lock = await lockDataDirectory(dataDir, { pid: 4242, isProcessAlive: () => true });
    const error = await lockDataDirectory(dataDir, { pid: 5151, isProcessAlive: () => true }).catch(
      (caught: unknown) => caught,
    );
    expect(FollowUpServerError.isInstance(error)).toBe(true);
    expect((error as FollowUpServerError).code).toBe('data_directory_locked');
    expect((error as Error).message).toContain(dataDir);
    expect((error as Error).message).toContain('process 4242');
    expect((error as Error).message).toContain('never be opened by two processes');
    await lock.release();
  });

  it('refuses a second lock from the same process (the real liveness probe)', async () => {
    const lock = await lockDataDirectory(dataDir);
    await expect(lockDataDirectory(dataDir)).rejects.toMatchObject({
      code: 'data_directory_locked',
    });
    await lock.release();
    const again = await lockDataDirectory(dataDir);
    await again.release();
  });

  it('takes over a lock file whose process is gone', async () => {
    await writeFile(join(dataDir, LOCK_FILE_NAME), '4242\n');
    const lock = await lockDataDirectory(dataDir, {
      pid: 5151,
      isProcessAlive: (pid) => pid !== 4242,
    });
    expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe('5151');
    await lock.release();
  });

  it('takes over an unreadable lock file', async () => {
    await writeFile(join(dataDir, LOCK_FILE_NAME), 'garbage');
    const lock = await lockDataDirectory(dataDir, { pid: 5151, isProcessAlive: () => true });
    expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe('5151');
    await lock.release();
  });

  it('does not remove a lock file that another process has since taken', async () => {
    const lock = await lockDataDirectory(dataDir, { pid: 4242 });
    await writeFile(lock.path, '5151\n');
    await lock.release();
    expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe('5151');
  });

  it('takes over a lock whose pid now belongs to another process (PID 1 reused in a container)', async () => {
    // The lock of an earlier incarnation with our very pid, as after SIGKILL and a restart.
    await writeFile(join(dataDir, LOCK_FILE_NAME), `${process.pid}\n`);
    const lock = await lockDataDirectory(dataDir);
    expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe(String(process.pid));
    await lock.release();
    // Another live process's pid, recorded with another start: stale too.
    await writeFile(join(dataDir, LOCK_FILE_NAME), `${process.ppid}\nidentity x:1\n`);
    const second = await lockDataDirectory(dataDir, {
      processIdentity: (pid) => (pid === process.ppid ? 'x:2' : undefined),
    });
    await second.release();
  });

  it.runIf(linuxProcessIdentity(1) !== undefined)(
    'takes over a lock naming PID 1 of another boot, and refuses one naming PID 1 as it runs now (real /proc)',
    async () => {
      const [bootId = '', startTime = ''] = (linuxProcessIdentity(1) ?? '').split(':');
      // The machine (or the container's kernel namespace) restarted: PID 1 runs, another boot.
      const otherBoot = bootId.replace(/^./, (first) => (first === '0' ? '1' : '0'));
      await writeFile(join(dataDir, LOCK_FILE_NAME), `1\nidentity ${otherBoot}:${startTime}\n`);
      const lock = await lockDataDirectory(dataDir);
      expect((await readFile(lock.path, 'utf8')).split('\n')[0]).toBe(String(process.pid));
      await lock.release();
      // Same boot, but PID 1 started at another time: a new PID 1 after a container restart.
      await writeFile(
        join(dataDir, LOCK_FILE_NAME),
        `1\nidentity ${bootId}:${Number(startTime) + 1}\n`,
      );
      const again = await lockDataDirectory(dataDir);
      await again.release();
      // The PID 1 that runs now, as recorded: a live holder, refused.
      await writeFile(join(dataDir, LOCK_FILE_NAME), `1\nidentity ${bootId}:${startTime}\n`);
      await expect(lockDataDirectory(dataDir)).rejects.toMatchObject({
        code: 'data_directory_locked',
      });
    },
  );

  it('still refuses a live process that is the one recorded', async () => {
    await writeFile(join(dataDir, LOCK_FILE_NAME), `${process.ppid}\nidentity x:1\n`);
    await expect(
      lockDataDirectory(dataDir, { processIdentity: () => 'x:1' }),
    ).rejects.toMatchObject({ code: 'data_directory_locked' });
  });

  it('records the boot id and start time of the holder on Linux', async () => {
    const identity = linuxProcessIdentity(process.pid);
    if (process.platform === 'linux') expect(identity).toMatch(/^[0-9a-f-]{36}:\d+$/);
    const lock = await lockDataDirectory(dataDir);
    const text = await readFile(lock.path, 'utf8');
    if (identity) expect(text).toBe(`${process.pid}\nidentity ${identity}\n`);
    await lock.release();
  });
});
