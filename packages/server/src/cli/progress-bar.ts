import type { TextSink } from '../plugins/logging.js';

/** A text sink that may be a terminal, like `process.stderr`: the CLI's standard error. */
export interface TerminalSink extends TextSink {
  /** True when the sink is a terminal; a progress bar is drawn only then. */
  isTTY?: boolean;
}

/** @internal A one-line progress bar. */
export interface ProgressBar {
  /** Redraws the bar: `done` of `total`. */
  update(done: number, total: number): void;
  /** Ends the bar's line. */
  finish(): void;
}

const width = 30;

/**
 * @internal A progress bar redrawn in place with `\r` on a terminal. On anything else (a pipe, a
 * file, `--json`) it writes nothing at all, so captured output stays clean.
 */
export function createProgressBar(sink: TerminalSink, label: string): ProgressBar {
  const enabled = sink.isTTY === true;
  let drawn = false;
  return {
    update(done, total) {
      if (!enabled) return;
      const ratio = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
      const filled = Math.round(ratio * width);
      const percent = String(Math.floor(ratio * 100)).padStart(3);
      sink.write(
        `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${done}/${total}`,
      );
      drawn = true;
    },
    finish() {
      if (drawn) sink.write('\n');
      drawn = false;
    },
  };
}
