import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';

/** How long the lines of requests shed are apart at least: one, then a count at most this often. */
export const SHED_LOG_INTERVAL_MS = 10_000;

/**
 * @internal The log of requests shed because too many wait for the database (503
 * `unavailable`): a saturated server sheds many a second, and a line for each would add to the
 * load and bury every other line. The first request shed is logged at `warn`; those shed in the
 * {@link SHED_LOG_INTERVAL_MS} after a line are counted, and the first shed after that interval
 * writes the next line with that count (`shedSinceLastLine`). Each shed request still has its own
 * request line (at `info`, with `code`).
 */
export function createShedLog(clock: Clock): (log: FastifyBaseLogger) => void {
  let lastLineAt = Number.NEGATIVE_INFINITY;
  let shedSinceLastLine = 0;
  return (log) => {
    const now = clock.now();
    if (now - lastLineAt < SHED_LOG_INTERVAL_MS) {
      shedSinceLastLine++;
      return;
    }
    log.warn(
      { code: 'unavailable', shedSinceLastLine },
      'requests shed: too many wait for the database',
    );
    lastLineAt = now;
    shedSinceLastLine = 0;
  };
}
