import { describe, expect, it } from 'vitest';
import { createProgressBar } from './progress-bar.js';

describe('createProgressBar', () => {
  it('redraws one line in place on a terminal and ends it', () => {
    const written: string[] = [];
    const bar = createProgressBar({ isTTY: true, write: (text) => written.push(text) }, 'contacts');
    bar.update(0, 4);
    bar.update(1, 4);
    bar.update(4, 4);
    bar.finish();
    expect(written).toEqual([
      `\rcontacts [${'-'.repeat(30)}]   0% 0/4`,
      `\rcontacts [${'#'.repeat(8)}${'-'.repeat(22)}]  25% 1/4`,
      `\rcontacts [${'#'.repeat(30)}] 100% 4/4`,
      '\n',
    ]);
  });

  it('writes nothing when the sink is not a terminal', () => {
    const written: string[] = [];
    for (const isTTY of [false, undefined]) {
      const bar = createProgressBar(
        { ...(isTTY === undefined ? {} : { isTTY }), write: (text) => written.push(text) },
        'contacts',
      );
      bar.update(1, 2);
      bar.finish();
    }
    expect(written).toEqual([]);
  });
});
