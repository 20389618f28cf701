import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStrace, type TracedCall } from './strace.js';

const call = fc.record({
  pid: fc.integer({ min: 1, max: 5 }),
  name: fc.constantFrom('read', 'write', 'writev', 'pwrite64', 'fsync', 'unlink'),
  target: fc.option(
    fc.oneof(
      fc.stringMatching(/^\/[a-z0-9_/.-]{0,40}$/),
      fc.integer({ min: 1, max: 999_999 }).map((inode) => `socket:[${inode}]`),
    ),
    { nil: undefined },
  ),
  // What strace prints of a buffer: any text on one line, ") = 3" and "<unfinished" included.
  data: fc.string({ maxLength: 60 }).filter((text) => !text.includes('\n')),
  result: fc.integer({ min: -1, max: 65_536 }),
  // Whether another thread's call returns between this one's start and its return.
  interrupted: fc.boolean(),
});
type Generated = typeof call extends fc.Arbitrary<infer T> ? T : never;

function argumentsOf(generated: Generated): string {
  const descriptor = generated.target === undefined ? '' : `7<${generated.target}>, `;
  return `${descriptor}"${generated.data}"..., 8192`;
}

function returned(generated: Generated): string {
  return generated.result === -1
    ? ') = -1 ENOENT (No such file or directory)'
    : `) = ${generated.result}`;
}

function expected(generated: Generated): TracedCall {
  return {
    pid: generated.pid,
    name: generated.name,
    target: generated.target,
    arguments: argumentsOf(generated),
    result: generated.result,
  };
}

/** strace -f output of `calls`, with the return order it implies. */
function render(calls: readonly Generated[]): { lines: string[]; order: TracedCall[] } {
  const lines: string[] = [];
  const order: TracedCall[] = [];
  for (let index = 0; index < calls.length; index++) {
    const current = calls[index] as Generated;
    const next = calls[index + 1];
    if (current.interrupted && next !== undefined && next.pid !== current.pid) {
      lines.push(`${current.pid}  ${current.name}(${argumentsOf(current)} <unfinished ...>`);
      lines.push(`${next.pid}  ${next.name}(${argumentsOf(next)}${returned(next)}`);
      lines.push(`${current.pid}  <... ${current.name} resumed>${returned(current)}`);
      order.push(expected(next), expected(current));
      index++;
    } else {
      lines.push(`${current.pid}  ${current.name}(${argumentsOf(current)}${returned(current)}`);
      order.push(expected(current));
    }
    if (index % 4 === 3) lines.push(`${current.pid}  --- SIGCHLD {si_signo=SIGCHLD} ---`);
  }
  lines.push('1  +++ exited with 0 +++');
  return { lines, order };
}

describe('parseStrace', () => {
  it('reads every call that returned, in the order they returned, interrupted ones included', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), (calls) => {
        const { lines, order } = render(calls);
        expect(parseStrace(lines.join('\n'))).toEqual(order);
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });

  it('leaves out a call that never returned', () => {
    const output = [
      '10  fsync(5</data/pg_wal/1> <unfinished ...>',
      '11  read(6<socket:[42]>, "GET", 10) = 3',
      '10  +++ killed by SIGKILL +++',
    ].join('\n');
    expect(parseStrace(output)).toEqual([
      {
        pid: 11,
        name: 'read',
        target: 'socket:[42]',
        arguments: '6<socket:[42]>, "GET", 10',
        result: 3,
      },
    ]);
  });
});
