import { spawnSync } from 'node:child_process';

/**
 * Why `strace` cannot trace a process on this machine (not installed, or the kernel or a
 * container forbids `ptrace`), or `undefined` when it can. In CI it must: a missing or
 * forbidden `strace` throws there, so that the tests that use it never silently stop running
 * (`.ci/run` installs it with `packages/server/scripts/install-strace.sh`).
 */
export function straceUnavailable(): string | undefined {
  const probe = spawnSync('strace', ['-f', '-qq', '-e', 'trace=fsync', 'true'], {
    encoding: 'utf8',
  });
  let reason: string | undefined;
  if (probe.error) {
    reason =
      (probe.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'strace is not installed (bash packages/server/scripts/install-strace.sh installs it)'
        : `strace did not start: ${probe.error.message}`;
  } else if (probe.status !== 0) {
    reason = `strace cannot trace here: ${probe.stderr.trim().split('\n')[0]}`;
  }
  if (reason !== undefined && process.env.CI && process.env.CI !== 'false') {
    throw new Error(`CI must run the tests that use strace, but ${reason}`);
  }
  return reason;
}

/** One system call of a traced process that returned. */
export interface TracedCall {
  /** The thread that made it. */
  pid: number;
  /** `pwrite64`, `fsync`, `read`… */
  name: string;
  /** What its first argument, a file descriptor, named (`strace -y`): a path, `socket:[…]`. */
  target: string | undefined;
  /** Its arguments as strace printed them, the descriptor's included. */
  arguments: string;
  /** What it returned: a count or 0, or -1 for a failure. */
  result: number;
}

const CALL = /^(\d+) +(?:(\w+)\((.*)|<\.\.\. (\w+) resumed>(.*))$/;
const UNFINISHED = ' <unfinished ...>';
const RETURNED = /\) += (-?\d+|\?)(?: [A-Z][A-Z0-9_]*(?: \([^)]*\))?)?$/;
const DESCRIPTOR = /^\d+<(.*?)>(?:, |$)/;

/**
 * The system calls of `strace -f -y` output (one line each, a thread's pid first), in the order
 * they returned. A call another thread interrupted (`<unfinished ...>`, then `<... name
 * resumed>`) counts where it returned; signals, exits and calls that never returned are left out.
 */
export function parseStrace(output: string): TracedCall[] {
  const calls: TracedCall[] = [];
  const unfinished = new Map<number, { name: string; start: string }>();
  for (const line of output.split('\n')) {
    const match = CALL.exec(line);
    if (!match) continue;
    const pid = Number(match[1]);
    let name: string;
    let text: string;
    if (match[2] !== undefined) {
      name = match[2];
      text = match[3] as string;
      if (text.endsWith(UNFINISHED)) {
        unfinished.set(pid, { name, start: text.slice(0, -UNFINISHED.length) });
        continue;
      }
    } else {
      const started = unfinished.get(pid);
      unfinished.delete(pid);
      if (started === undefined || started.name !== match[4]) continue;
      name = started.name;
      text = started.start + (match[5] as string);
    }
    const returned = RETURNED.exec(text);
    if (!returned || returned[1] === '?') continue;
    const argumentsText = text.slice(0, returned.index);
    calls.push({
      pid,
      name,
      target: DESCRIPTOR.exec(argumentsText)?.[1],
      arguments: argumentsText,
      result: Number(returned[1]),
    });
  }
  return calls;
}
