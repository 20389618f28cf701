import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type CapturedIo, captureIo } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { parseToken } from '../tokens/token-format.js';
import { runCli } from './run-cli.js';

describe('start: logs on standard error, the announcement on standard output', () => {
  const database = useTestDatabase();

  /**
   * Starts the server with these arguments, lets `exercise` call it, then stops it: once `start`
   * has returned, every request's line has been written (closing waits for requests in flight).
   */
  async function run(
    argv: string[],
    exercise: (origin: string, firstLine: string) => Promise<void>,
    options: { env?: Record<string, string>; terminal?: boolean } = {},
  ): Promise<CapturedIo> {
    const controller = new AbortController();
    const captured = captureIo(options.env ?? {}, controller.signal);
    captured.io.database = database();
    if (options.terminal) {
      captured.io.stderr = { isTTY: true, write: (text: string) => captured.err.push(text) };
    }
    const exit = runCli(['start', '--port', '0', ...argv], captured.io);
    const firstLine = await captured.firstLine;
    try {
      const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(firstLine)?.[0] ?? '';
      await exercise(origin, firstLine);
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
    }
    return captured;
  }

  const requestLines = (captured: CapturedIo) =>
    captured.err
      .join('')
      .split('\n')
      .filter((line) => line.includes('request completed'));

  it('writes one JSON line per request at info, and none with --log-level warn or LOG_LEVEL=warn', async () => {
    const exercise = async (origin: string) => {
      expect((await fetch(`${origin}/livez`)).status).toBe(200);
      expect((await fetch(`${origin}/api/contacts`)).status).toBe(401);
    };
    const atInfo = await run(['--json'], exercise);
    expect(requestLines(atInfo).map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ url: '/livez' }) }),
      expect.objectContaining({ code: 'token_missing', res: { statusCode: 401 } }),
    ]);
    for (const quiet of [
      { argv: ['--log-level', 'warn'], env: {} },
      { argv: [], env: { LOG_LEVEL: 'warn' } },
    ]) {
      const atWarn = await run(['--json', ...quiet.argv], exercise, { env: quiet.env });
      expect(requestLines(atWarn)).toEqual([]);
      // Not one info line: not even "Server listening".
      expect(atWarn.err.join('')).not.toContain('"level":30');
    }
  });

  it("writes pino-pretty's format with --log-format pretty, and by default on a terminal", async () => {
    const exercise = async (origin: string) => {
      expect((await fetch(`${origin}/livez?probe=1`)).status).toBe(200);
    };
    const asked = await run(['--json', '--log-format', 'pretty'], exercise);
    const onTerminal = await run(['--json'], exercise, { terminal: true });
    for (const captured of [asked, onTerminal]) {
      const lines = stripVTControlCharacters(captured.err.join('')).split('\n');
      expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
      expect(lines.filter((line) => line.includes('GET /livez'))).toEqual([
        expect.stringMatching(
          /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/livez 200 \d+\.\d ms \{"requestId":"req_\w+","route":"\/livez","remoteAddress":"127\.0\.0\.1"\}$/,
        ),
      ]);
    }
    // Coloured on the terminal only.
    expect(asked.err.join('')).not.toContain('\u001b[');
    expect(onTerminal.err.join('')).toContain('\u001b[');
  });

  it('refuses a level or a format it does not know with a usage error naming the flag', async () => {
    for (const [argv, env, flag] of [
      [['--log-level', 'loud'], {}, '--log-level (LOG_LEVEL)'],
      [[], { LOG_FORMAT: 'xml' }, '--log-format (LOG_FORMAT)'],
    ] as const) {
      const refused = captureIo(env);
      refused.io.database = database();
      expect(await runCli(['start', '--port', '0', ...argv], refused.io)).toBe(2);
      expect(refused.err.join('')).toContain(flag);
      expect(refused.out).toEqual([]);
    }
  });

  it('--demo prints its token, sign-in link and EHR command as one block, alone on standard output', async () => {
    let block = '';
    const captured = await run(['--demo'], async (origin, firstLine) => {
      block = firstLine;
      const token = /^ {2}(hns_\S+)$/m.exec(block)?.[1] ?? '';
      for (const path of ['/api/contacts?limit=1', '/api/deals?limit=1']) {
        const answer = await fetch(`${origin}${path}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer.status).toBe(200);
      }
    });
    // One write, made once the server was ready, and nothing after it.
    expect(captured.out).toEqual([block]);
    const token = /^ {2}(hns_\S+)$/m.exec(block)?.[1];
    expect(token && parseToken(token)).toBeTruthy();
    expect(block).toMatch(/^ {2}http:\/\/127\.0\.0\.1:\d+\/signin\/\S+$/m);
    expect(block).toMatch(/^ {2}node -e "fetch\('http:\/\/127\.0\.0\.1:\d+\/api\/ehr\/webhooks\//m);
    // Every log line is on standard error: the server's start, and each request.
    expect(requestLines(captured)).toHaveLength(2);
    expect(captured.err.join('')).toContain('Server listening at');
    expect(captured.err.join('')).not.toContain(token);
  });
});
