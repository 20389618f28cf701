import { describe, expect, it } from 'vitest';
import { describeBuild } from './start.mjs';

/** The end of turbo's output for a build of `total` tasks, `cached` of them from its cache. */
const turboSaid = (cached, total) =>
  `\n Tasks:    ${total} successful, ${total} total\nCached:    ${cached} cached, ${total} total\n  Time:    83ms\n`;

describe('describeBuild', () => {
  it('says the build was reused when every package came from the cache', () => {
    expect(describeBuild({ output: turboSaid(3, 3), seconds: 0.64 })).toBe(
      'start: the build is current (3 of 3 packages reused), checked in 0.6 s',
    );
  });

  it('says how many packages were built when some were not current', () => {
    expect(describeBuild({ output: turboSaid(1, 3), seconds: 21.27 })).toBe(
      'start: built 2 of 3 packages (1 reused) in 21.3 s',
    );
    expect(describeBuild({ output: turboSaid(0, 3), seconds: 40 })).toBe(
      'start: built 3 of 3 packages (0 reused) in 40.0 s',
    );
  });

  it('still reports the time when turbo words its summary otherwise', () => {
    expect(describeBuild({ output: 'done', seconds: 1.25 })).toBe('start: build checked in 1.3 s');
  });
});
