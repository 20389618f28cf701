import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@followup/server/testing';
import { verifySignature, verifyStandardWebhook } from '@followup/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { steppingClock } from '../test/support/test-io.js';
import { startTestReceiver, type TestReceiver } from '../test/support/test-receiver.js';
import type { CliClock } from './cli-io.js';
import { main } from './main.js';

let server: TestServer;
let token: string;
let configHome: string;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  server = await startTestServer();
  token = await server.issueToken('ADMIN');
  configHome = mkdtempSync(join(tmpdir(), 'followup-listen-'));
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  rmSync(configHome, { recursive: true, force: true });
  await server?.close();
});

/** `followup listen …args --json` running in-process until `stop()`. */
function listen(args: string[], clock: CliClock & { waited: number[] } = steppingClock()) {
  const controller = new AbortController();
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  const exit = main(['listen', ...args, '--json'], {
    stdout: {
      write(text: string) {
        pending += text;
        let newline = pending.indexOf('\n');
        while (newline !== -1) {
          const line = JSON.parse(pending.slice(0, newline));
          pending = pending.slice(newline + 1);
          lines.push(line);
          for (const waiter of [...waiters]) {
            if (waiter.test(line)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
          }
          newline = pending.indexOf('\n');
        }
      },
    },
    stderr: { write: (text: string) => lines.push({ type: 'stderr', text }) },
    env: { XDG_CONFIG_HOME: configHome, FOLLOWUP_BASE_URL: server.baseUrl, FOLLOWUP_TOKEN: token },
    signal: controller.signal,
    clock,
  });
  return {
    lines,
    clock,
    exit,
    /** Resolves when a printed line passes `test`. */
    until(test: (line: Record<string, unknown>) => boolean): Promise<void> {
      if (lines.some(test)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    async stop() {
      controller.abort();
      return exit;
    },
  };
}

async function receiver(...args: Parameters<typeof startTestReceiver>) {
  const started = await startTestReceiver(...args);
  receivers.push(started);
  return started;
}

const newContact = (lastName: string) =>
  server.client.contacts.create({ firstName: 'Listen', lastName });

describe('followup listen', () => {
  it('forwards the contacts created after it starts, in order, verified by @followup/webhooks', async () => {
    await newContact('before');
    const target = await receiver();
    const run = listen(['--forward-to', target.url]);
    await run.until((line) => line.type === 'ready');
    const ready = run.lines[0] as { secret: string; forwardTo: string };
    expect(ready.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const created = [];
    for (const name of ['one', 'two', 'three']) created.push(await newContact(name));
    await run.until(() => run.lines.filter((line) => line.type === 'attempt').length === 3);
    expect(await run.stop()).toBe(0);

    const events = target.requests.map((request) => {
      // Signed at the time of the command's clock, which the test moves.
      const now = Number(request.headers['webhook-timestamp']);
      verifySignature(request.body, request.headers, { secret: ready.secret, now });
      verifyStandardWebhook(request.body, request.headers, { secret: ready.secret, now });
      expect(request.headers['x-service-delivery']).toBe(request.headers['webhook-id']);
      return JSON.parse(request.body.toString('utf8'));
    });
    expect(events.map((event) => [event.event, event.data.id])).toEqual(
      created.map((contact) => ['contact.created', contact.id]),
    );
    const attempts = run.lines.filter((line) => line.type === 'attempt');
    expect(attempts.map((line) => [line.kind, line.eventId, line.status])).toEqual(
      events.map((event) => ['contact.created', event.eventId, 204]),
    );
    expect(run.lines.at(-1)).toEqual({
      type: 'stopped',
      resumeFrom: events.at(-1).eventId,
      droppedRetries: [],
    });
    // Events arrive within a second of their commit: no idle wait is longer.
    expect(Math.max(...run.clock.waited)).toBeLessThanOrEqual(1000);
  });

  it('sends the body a real delivery of the server carries, signed the same two ways', async () => {
    const endpoint = await server.addEndpoint({ events: ['contact.updated'] });
    const target = await receiver();
    const run = listen(['--forward-to', target.url, '--events', 'contact.updated']);
    await run.until((line) => line.type === 'ready');
    const contact = await newContact('shape');
    await server.client.contacts.update(contact.id, { lifecycle: 'PATIENT' });
    const real = await endpoint.nextDelivery();
    const forwarded = await target.request(1);
    await run.stop();
    const { id: realId, ...realBody } = JSON.parse(real.body);
    const { id: forwardedId, ...forwardedBody } = JSON.parse(forwarded.body.toString('utf8'));
    expect(forwardedBody).toEqual(realBody);
    expect(forwardedBody.previousAttributes).toEqual({ lifecycle: 'LEAD' });
    expect(forwardedId).toMatch(/^dlv_/);
    const names = (headers: Record<string, string>) =>
      Object.keys(headers)
        .filter((name) => /^(x-service-|webhook-|content-type|user-agent)/.test(name))
        .sort();
    expect(names(forwarded.headers)).toEqual(names(real.headers));
  });

  it("retries a failing receiver on the server's schedule, with the same delivery id", async () => {
    const target = await receiver((_request, response, index) => {
      response.writeHead(index < 2 ? 503 : 204).end();
    });
    const run = listen(['--forward-to', target.url]);
    await run.until((line) => line.type === 'ready');
    await newContact('flaky');
    await run.until((line) => line.type === 'attempt' && line.status === 204);
    await run.stop();
    const attempts = run.lines.filter((line) => line.type === 'attempt');
    expect(attempts.map((line) => [line.attempt, line.status, line.nextRetryMs])).toEqual([
      [1, 503, 30_000],
      [2, 503, 120_000],
      [3, 204, undefined],
    ]);
    expect(new Set(target.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    // Each attempt is signed for its own time.
    expect(
      new Set(target.requests.map((request) => request.headers['webhook-timestamp'])).size,
    ).toBe(3);
  });

  it('stops at once on Ctrl-C, dropping pending retries, and says where to resume', async () => {
    const target = await receiver((_request, response) => void response.writeHead(500).end());
    // The feed's waits pass at once; a retry's (30 s and more) never ends before Ctrl-C.
    const stepping = steppingClock();
    const clock = {
      ...stepping,
      sleep: (ms: number, signal?: AbortSignal) =>
        ms <= 1000
          ? stepping.sleep(ms, signal)
          : new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve())),
    };
    const run = listen(['--forward-to', target.url], clock);
    await run.until((line) => line.type === 'ready');
    await newContact('refused');
    await run.until((line) => line.type === 'attempt');
    expect(await run.stop()).toBe(0);
    const attempt = run.lines.find((line) => line.type === 'attempt') as { eventId: string };
    expect(run.lines.at(-1)).toEqual({
      type: 'stopped',
      resumeFrom: attempt.eventId,
      droppedRetries: [attempt.eventId],
    });
  });

  it('--fast-retries shortens the schedule', async () => {
    const target = await receiver((_request, response, index) => {
      response.writeHead(index === 0 ? 500 : 200).end();
    });
    const run = listen(['--forward-to', target.url, '--fast-retries']);
    await run.until((line) => line.type === 'ready');
    await newContact('fast');
    await run.until((line) => line.type === 'attempt' && line.status === 200);
    await run.stop();
    expect(run.lines.find((line) => line.type === 'attempt')?.nextRetryMs).toBe(1_000);
  });

  it('resumes with --from after the event it printed, and keeps its secret across runs', async () => {
    const target = await receiver();
    const first = listen(['--forward-to', target.url]);
    await first.until((line) => line.type === 'ready');
    await newContact('first run');
    await first.until((line) => line.type === 'attempt');
    await first.stop();
    const { resumeFrom } = first.lines.at(-1) as { resumeFrom: string };
    const missed = await newContact('while stopped');

    const second = listen(['--forward-to', target.url, '--from', resumeFrom]);
    await second.until((line) => line.type === 'attempt');
    await second.stop();
    expect(JSON.parse(target.requests[1]?.body.toString('utf8') ?? '').data.id).toBe(missed.id);
    expect((second.lines[0] as { secret: string }).secret).toBe(
      (first.lines[0] as { secret: string }).secret,
    );
  });

  it('--print-secret prints the kept secret, --new-secret replaces it', async () => {
    let out = '';
    const io = {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: () => true },
      env: { XDG_CONFIG_HOME: configHome },
    };
    expect(await main(['listen', '--print-secret'], io)).toBe(0);
    const kept = out.trim();
    out = '';
    await main(['listen', '--print-secret'], io);
    expect(out.trim()).toBe(kept);
    out = '';
    await main(['listen', '--print-secret', '--new-secret'], io);
    expect(out.trim()).not.toBe(kept);
    expect(out.trim()).toMatch(/^whsec_/);
  });

  it('is a usage error without --forward-to, or with an unknown kind', async () => {
    const io = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { XDG_CONFIG_HOME: configHome },
    };
    expect(await main(['listen'], io)).toBe(2);
    expect(
      await main(['listen', '--forward-to', 'http://127.0.0.1:1/', '--events', 'x.y'], io),
    ).toBe(2);
    expect(
      await main(['listen', '--forward-to', 'http://127.0.0.1:1/', '--from', 'yesterday'], io),
    ).toBe(2);
  });
});
