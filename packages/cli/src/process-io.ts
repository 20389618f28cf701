import type { CliIo } from './cli-io.js';

/**
 * @internal The real process as a {@link CliIo}. With `interruptible`, the first SIGINT (Ctrl-C)
 * aborts `signal` instead of killing the process, so that `listen` stops at once and still prints
 * where to resume; a second SIGINT kills it as usual.
 */
export function processIo(options: { interruptible: boolean }): CliIo {
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
  if (options.interruptible) {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    io.signal = controller.signal;
  }
  return io;
}
