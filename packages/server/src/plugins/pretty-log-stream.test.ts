import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prettyLogStream } from './pretty-log-stream.js';

/** A pretty stream over a collector: what one line of pino's becomes. */
function prettyOf(line: string | Record<string, unknown>, isTTY = false): string[] {
  const written: string[] = [];
  const stream = prettyLogStream({ isTTY, write: (text) => written.push(text) });
  stream.write(typeof line === 'string' ? line : `${JSON.stringify(line)}\n`);
  return written;
}

const TIME = Date.UTC(2026, 2, 1, 9, 0, 0, 123);

describe('prettyLogStream', () => {
  it('writes a request line as method, path, status and duration, then its other fields', () => {
    const [written, ...more] = prettyOf({
      level: 30,
      time: TIME,
      pid: 7,
      hostname: 'host',
      requestId: 'req_1',
      req: {
        method: 'GET',
        url: '/api/contacts/con_1',
        route: '/api/contacts/:id',
        remoteAddress: '127.0.0.1',
      },
      res: { statusCode: 404 },
      responseTime: 3.125,
      actor: 'sa_1',
      code: 'not_found',
      msg: 'request completed',
    });
    expect(more).toEqual([]);
    expect(written).toMatch(
      /^\[\d\d:\d\d:\d\d\.123\] INFO: GET \/api\/contacts\/con_1 404 3\.1 ms \{"requestId":"req_1","actor":"sa_1","code":"not_found","route":"\/api\/contacts\/:id","remoteAddress":"127\.0\.0\.1"\}\n$/,
    );
  });

  it("keeps an error's stack below its line, and leaves other lines' messages alone", () => {
    const [written] = prettyOf({
      level: 50,
      time: TIME,
      requestId: 'req_2',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at handler (file.ts:1:1)' },
      msg: 'request failed',
    });
    expect(written).toMatch(
      /^\[\d\d:\d\d:\d\d\.123\] ERROR: request failed \{"requestId":"req_2"\}\n/,
    );
    expect(written).toContain('    at handler (file.ts:1:1)');
  });

  it('colours its lines on a terminal only', () => {
    const line = { level: 40, time: TIME, msg: 'careful' };
    expect(prettyOf(line, true)[0]).toContain('\u001b[');
    expect(prettyOf(line, false)[0]).not.toContain('\u001b[');
  });

  it('writes anything once, and what is not a JSON object as it came', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const written = prettyOf(text);
        expect(written).toHaveLength(1);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          expect(written[0]).toBe(text);
        }
      }),
    );
  });
});
