#!/usr/bin/env node
import { runCli } from './cli/run-cli.js';

// The binary only wires the process to runCli: signals stop `start` gracefully.
const controller = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => controller.abort());
}
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
});
