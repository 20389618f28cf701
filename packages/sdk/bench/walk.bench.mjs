#!/usr/bin/env node
// Benchmark (not a test): walk 100,000 contacts, 200 per page, from a local node:http server
// with the built SDK (validation on), and with a hand-written fetch loop over the same pages, in
// interleaved rounds of the same run. Each walk is timed on the wall clock and by the CPU time it
// costs the client and the server together (the server reports its own), which a busy machine
// disturbs far less than the wall clock. Then one more SDK walk that samples the heap after a
// forced GC every 25 pages, to see whether memory grows with the walk.
//
// For the breakdown, each round also walks through ky alone (the fetch loop on the SDK's
// transport) and through the SDK with validation off, both item by item (`for await` over the
// list) and page by page (`.pages()`, each page's items in a plain loop): from the ky loop to the
// SDK's pages is the SDK's own request pipeline, from its pages to its items the `for await` per
// item, from validation off to on the schema check. Last, the bytes each walk allocates per
// page (V8's sampling heap profiler, objects already collected included): a count of work that,
// unlike time, the other processes of a busy machine do not change.
//
// Run: npm run bench (node --expose-gc bench/walk.bench.mjs), after npm run build.
// Writes bench/results.json and bench/results.md.
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { median } from '../../../scripts/bench/measure.mjs';

const TOTAL = 100_000;
const LIMIT = 200;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WARMUP = 2;
const TOKEN = 'hns_sa_bench.YmVuY2gtc2VjcmV0LWJlbmNoLXNlY3JldC1iZW5jaA';

// ---- the server, in a child process so that its work and memory are not the client's ----
if (process.argv[2] === 'serve') {
  const epoch = Date.UTC(2026, 0, 1);
  const lifecycles = ['LEAD', 'PROSPECT', 'PATIENT', 'INACTIVE'];
  const contact = (index) => {
    const at = new Date(epoch + index * 1000).toISOString();
    return {
      id: `con_${String(index).padStart(8, '0')}`,
      firstName: `First${index}`,
      lastName: `Last${index}`,
      lifecycle: lifecycles[index % 4],
      email: `contact${index}@example.com`,
      phone: `+1555${String(index).padStart(7, '0')}`,
      createdAt: at,
      updatedAt: at,
    };
  };
  // Pages are serialised once and cached, so that both clients are served the same bytes at
  // the same cost and the comparison measures the clients.
  const cache = new Map();
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://bench');
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401, { 'content-type': 'application/problem+json' });
      response.end('{"status":401,"code":"token_invalid"}');
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const key = `${limit}:${offset}`;
    let body = cache.get(key);
    if (body === undefined) {
      const contacts = [];
      for (let index = offset; index < Math.min(TOTAL, offset + limit); index++) {
        contacts.push(contact(index));
      }
      body = Buffer.from(JSON.stringify({ contacts }));
      cache.set(key, body);
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': body.length,
      'x-request-id': 'req_bench',
    });
    response.end(body);
  });
  // The CPU time this process has used so far, in microseconds, for the parent to take deltas of.
  process.on('message', (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpuMicros: usage.user + usage.system });
    }
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
} else {
  await main();
}

async function main() {
  if (typeof globalThis.gc !== 'function') {
    console.error('Run with node --expose-gc (npm run bench does).');
    process.exit(1);
  }
  // BENCH_SDK names another build of the SDK to measure instead (an ES module exporting FollowUp).
  const sdkModule = process.env.BENCH_SDK
    ? new URL(process.env.BENCH_SDK, `file://${process.cwd()}/`).href
    : '../dist/index.js';
  const { FollowUp } = await import(sdkModule);
  // For the breakdown only: ky, the SDK's transport, alone in a loop like the fetch loop.
  const { default: ky } = await import('ky');
  const child = fork(new URL(import.meta.url).pathname, ['serve'], { stdio: 'inherit' });
  const port = await new Promise((resolve) =>
    child.once('message', (message) => resolve(message.port)),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = new FollowUp({ token: TOKEN, baseUrl, validation: 'strict' });
  // For the breakdown only: the same walk without zod, to separate the request pipeline (ky,
  // retries, deadline) from validation.
  const unvalidated = new FollowUp({ token: TOKEN, baseUrl, validation: 'off' });

  async function walkWith(sdk) {
    let count = 0;
    for await (const contact of sdk.contacts.list({ limit: LIMIT })) {
      if (contact.id.length > 0) count++;
    }
    return count;
  }
  const sdkWalk = () => walkWith(client);
  const sdkOffWalk = () => walkWith(unvalidated);
  // For the breakdown only: the same pages without `for await` per item.
  async function sdkOffPagesWalk() {
    let count = 0;
    for await (const page of unvalidated.contacts.list({ limit: LIMIT }).pages()) {
      for (const contact of page.items) if (contact.id.length > 0) count++;
    }
    return count;
  }

  async function fetchWalk() {
    let count = 0;
    for (let offset = 0; ; offset += LIMIT) {
      const response = await fetch(`${baseUrl}/api/contacts?limit=${LIMIT}&offset=${offset}`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const { contacts } = await response.json();
      for (const contact of contacts) if (contact.id.length > 0) count++;
      if (contacts.length < LIMIT) break;
    }
    return count;
  }

  // The same loop as fetchWalk, through ky (retry, timeout and HTTP errors off): what a
  // transport on ky costs before any validation or paging logic.
  const kyClient = ky.create({ retry: 0, timeout: false, throwHttpErrors: false });
  async function kyWalk() {
    let count = 0;
    for (let offset = 0; ; offset += LIMIT) {
      const response = await kyClient(`${baseUrl}/api/contacts?limit=${LIMIT}&offset=${offset}`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const { contacts } = JSON.parse(await response.text());
      for (const contact of contacts) if (contact.id.length > 0) count++;
      if (contacts.length < LIMIT) break;
    }
    return count;
  }

  const serverCpuMicros = () =>
    new Promise((resolve) => {
      child.once('message', (message) => resolve(message.cpuMicros));
      child.send('cpu');
    });
  const clientCpuMicros = () => {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  };

  // The wall time of a walk in ms, and the CPU time (client and server) it cost, in ms.
  async function timed(walk) {
    const serverBefore = await serverCpuMicros();
    const clientBefore = clientCpuMicros();
    const started = performance.now();
    const count = await walk();
    const ms = performance.now() - started;
    const clientMicros = clientCpuMicros() - clientBefore;
    const serverMicros = (await serverCpuMicros()) - serverBefore;
    if (count !== TOTAL) throw new Error(`walked ${count} contacts, expected ${TOTAL}`);
    return { ms, cpuMs: (clientMicros + serverMicros) / 1000 };
  }

  try {
    for (let round = 0; round < WARMUP; round++) {
      await timed(sdkWalk);
      await timed(fetchWalk);
      await timed(sdkOffWalk);
      await timed(sdkOffPagesWalk);
      await timed(kyWalk);
    }
    const rounds = [];
    // The highest 1-minute load average seen at the start of a round. The walk itself keeps one
    // or two processes busy; above twice the number of CPUs, other processes competed for the
    // CPUs all along and decided the times.
    let busiestLoad = os.loadavg()[0];
    for (let round = 0; round < ROUNDS; round++) {
      busiestLoad = Math.max(busiestLoad, os.loadavg()[0]);
      // Alternate which walk goes first, so neither always runs on a warmer process.
      const sdkFirst = round % 2 === 0;
      const first = await timed(sdkFirst ? sdkWalk : fetchWalk);
      const second = await timed(sdkFirst ? fetchWalk : sdkWalk);
      const sdk = sdkFirst ? first : second;
      const fetched = sdkFirst ? second : first;
      const sdkOff = await timed(sdkOffWalk);
      const sdkOffPages = await timed(sdkOffPagesWalk);
      const kyLoop = await timed(kyWalk);
      const [sdkMs, fetchMs, sdkOffMs, sdkOffPagesMs, kyMs] = [
        sdk,
        fetched,
        sdkOff,
        sdkOffPages,
        kyLoop,
      ].map((t) => t.ms);
      rounds.push({
        sdkMs,
        fetchMs,
        sdkOffMs,
        sdkOffPagesMs,
        kyMs,
        ratio: sdkMs / fetchMs,
        offRatio: sdkOffMs / fetchMs,
        offPagesRatio: sdkOffPagesMs / fetchMs,
        kyRatio: kyMs / fetchMs,
        sdkCpuMs: sdk.cpuMs,
        fetchCpuMs: fetched.cpuMs,
        sdkOffCpuMs: sdkOff.cpuMs,
        sdkOffPagesCpuMs: sdkOffPages.cpuMs,
        kyCpuMs: kyLoop.cpuMs,
        cpuRatio: sdk.cpuMs / fetched.cpuMs,
        offCpuRatio: sdkOff.cpuMs / fetched.cpuMs,
        offPagesCpuRatio: sdkOffPages.cpuMs / fetched.cpuMs,
        kyCpuRatio: kyLoop.cpuMs / fetched.cpuMs,
      });
      console.log(
        `round ${round + 1}: sdk ${sdkMs.toFixed(1)} ms, fetch ${fetchMs.toFixed(1)} ms, ratio ${(sdkMs / fetchMs).toFixed(3)}; sdk without validation ${sdkOffMs.toFixed(1)} ms, by pages ${sdkOffPagesMs.toFixed(1)} ms; ky loop ${kyMs.toFixed(1)} ms; CPU ratio ${(sdk.cpuMs / fetched.cpuMs).toFixed(3)}`,
      );
    }

    // Heap: one more SDK walk, sampling the heap after a forced GC every 25 pages.
    globalThis.gc();
    const baseline = process.memoryUsage().heapUsed;
    const samples = [];
    let pages = 0;
    let peakWithoutGc = 0;
    for await (const page of client.contacts.list({ limit: LIMIT }).pages()) {
      pages++;
      peakWithoutGc = Math.max(peakWithoutGc, process.memoryUsage().heapUsed - baseline);
      if (pages % 25 === 0 && page.items.length > 0) {
        globalThis.gc();
        samples.push({ pages, growthBytes: process.memoryUsage().heapUsed - baseline });
      }
    }
    globalThis.gc();
    const afterWalk = process.memoryUsage().heapUsed - baseline;
    const maxRetained = Math.max(...samples.map((sample) => sample.growthBytes), afterWalk);
    const firstHalf = samples.slice(0, Math.floor(samples.length / 2));
    const secondHalf = samples.slice(Math.floor(samples.length / 2));
    const mean = (list) => list.reduce((sum, sample) => sum + sample.growthBytes, 0) / list.length;
    const trendBytes = mean(secondHalf) - mean(firstHalf);

    // Allocation: one more walk of each kind under the sampling heap profiler, which with these
    // flags also counts the objects that were collected during the walk.
    const inspector = new Session();
    inspector.connect();
    async function kilobytesPerPage(walk) {
      await inspector.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      const count = await walk();
      const { profile } = await inspector.post('HeapProfiler.stopSampling');
      if (count !== TOTAL) throw new Error(`walked ${count} contacts, expected ${TOTAL}`);
      let bytes = 0;
      const visit = (node) => {
        bytes += node.selfSize;
        for (const child of node.children) visit(child);
      };
      visit(profile.head);
      return bytes / 1024 / (TOTAL / LIMIT + 1);
    }
    const allocated = {
      fetchKB: await kilobytesPerPage(fetchWalk),
      kyKB: await kilobytesPerPage(kyWalk),
      sdkOffPagesKB: await kilobytesPerPage(sdkOffPagesWalk),
      sdkOffKB: await kilobytesPerPage(sdkOffWalk),
      sdkKB: await kilobytesPerPage(sdkWalk),
    };
    inspector.disconnect();

    const mb = (bytes) => bytes / (1024 * 1024);
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      contacts: TOTAL,
      limit: LIMIT,
      pages: TOTAL / LIMIT + 1,
      validation: 'strict',
      rounds: ROUNDS,
      warmupRounds: WARMUP,
      medianSdkMs: median(rounds.map((round) => round.sdkMs)),
      medianFetchMs: median(rounds.map((round) => round.fetchMs)),
      medianRatio: median(rounds.map((round) => round.ratio)),
      medianSdkValidationOffMs: median(rounds.map((round) => round.sdkOffMs)),
      medianValidationOffRatio: median(rounds.map((round) => round.offRatio)),
      medianSdkValidationOffPagesMs: median(rounds.map((round) => round.sdkOffPagesMs)),
      medianValidationOffPagesRatio: median(rounds.map((round) => round.offPagesRatio)),
      medianKyLoopMs: median(rounds.map((round) => round.kyMs)),
      medianKyLoopRatio: median(rounds.map((round) => round.kyRatio)),
      fastestSdkMs: Math.min(...rounds.map((round) => round.sdkMs)),
      fastestFetchMs: Math.min(...rounds.map((round) => round.fetchMs)),
      medianSdkCpuMs: median(rounds.map((round) => round.sdkCpuMs)),
      medianFetchCpuMs: median(rounds.map((round) => round.fetchCpuMs)),
      medianCpuRatio: median(rounds.map((round) => round.cpuRatio)),
      medianValidationOffCpuRatio: median(rounds.map((round) => round.offCpuRatio)),
      medianValidationOffPagesCpuRatio: median(rounds.map((round) => round.offPagesCpuRatio)),
      medianKyLoopCpuRatio: median(rounds.map((round) => round.kyCpuRatio)),
      loadAverage: os.loadavg(),
      busiestLoad,
      busy: busiestLoad > 2 * os.cpus().length,
      cpus: os.cpus().length,
      targetRatio: 1.15,
      heap: {
        maxRetainedGrowthMB: mb(maxRetained),
        retainedGrowthAfterWalkMB: mb(afterWalk),
        trendSecondHalfMinusFirstHalfMB: mb(trendBytes),
        peakGrowthWithoutGcMB: mb(peakWithoutGc),
        samples: samples.map((sample) => ({
          pages: sample.pages,
          growthMB: mb(sample.growthBytes),
        })),
        targetMB: 20,
      },
      allocatedPerPage: allocated,
      roundsDetail: rounds,
    };
    writeFileSync(
      new URL('results.json', import.meta.url),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    const verdict = (ok) => (ok ? 'met' : 'NOT met');
    // A time measured on a busy machine is not judged against the target.
    const timeVerdict = (ok) => (results.busy ? 'not judged, the machine was busy' : verdict(ok));
    const markdown = `# @followup/sdk walk benchmark

Walk of ${TOTAL.toLocaleString('en')} contacts, limit ${LIMIT} (${results.pages} requests), from a
local node:http server (a child process serving pre-serialised pages), with the built SDK
(\`validation: 'strict'\`, every contact checked by zod) and with a hand-written \`fetch\` loop over
the same pages. ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds, alternating which goes first.
${results.date}, Node ${results.node}, ${results.platform}, ${results.cpus} CPUs, load average
${results.loadAverage.map((load) => load.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end of the run.
${
  results.busy
    ? `
**The times of this run measure the machine, not the SDK**: the 1-minute load average reached
${results.busiestLoad.toFixed(1)} on ${results.cpus} CPUs, so other processes competed with the walks for the CPUs. The bytes
allocated per page (the last table) do not depend on the load; judge the times on a quiet machine.
`
    : ''
}
| | median |
|---|---|
| SDK walk | ${results.medianSdkMs.toFixed(1)} ms |
| fetch loop | ${results.medianFetchMs.toFixed(1)} ms |
| SDK / fetch (median of per-round ratios) | **${results.medianRatio.toFixed(3)}x** (target 1.15x: ${timeVerdict(results.medianRatio <= 1.15)}) |
| for the breakdown: SDK with \`validation: 'off'\` | ${results.medianSdkValidationOffMs.toFixed(1)} ms, ${results.medianValidationOffRatio.toFixed(3)}x |
| SDK with \`validation: 'off'\`, walked by \`.pages()\` (no \`for await\` per item) | ${results.medianSdkValidationOffPagesMs.toFixed(1)} ms, ${results.medianValidationOffPagesRatio.toFixed(3)}x |
| for comparison: the fetch loop through ky (no validation) | ${results.medianKyLoopMs.toFixed(1)} ms, ${results.medianKyLoopRatio.toFixed(3)}x |
| fastest SDK walk / fastest fetch loop | ${results.fastestSdkMs.toFixed(1)} / ${results.fastestFetchMs.toFixed(1)} ms, ${(results.fastestSdkMs / results.fastestFetchMs).toFixed(3)}x |

CPU time of each walk, the client's and the server's together (on a busy machine the wall clock
mostly measures the other processes; the CPU a walk costs does not depend on them as much):

| | median |
|---|---|
| SDK walk | ${results.medianSdkCpuMs.toFixed(1)} ms |
| fetch loop | ${results.medianFetchCpuMs.toFixed(1)} ms |
| SDK / fetch (median of per-round ratios) | **${results.medianCpuRatio.toFixed(3)}x** (target 1.15x: ${timeVerdict(results.medianCpuRatio <= 1.15)}) |
| SDK with \`validation: 'off'\` / fetch | ${results.medianValidationOffCpuRatio.toFixed(3)}x |
| SDK with \`validation: 'off'\`, by \`.pages()\` / fetch | ${results.medianValidationOffPagesCpuRatio.toFixed(3)}x |
| the fetch loop through ky / fetch | ${results.medianKyLoopCpuRatio.toFixed(3)}x |

Heap during one more SDK walk, measured after a forced GC every 25 pages, relative to before
the walk:

| | |
|---|---|
| largest retained growth | **${results.heap.maxRetainedGrowthMB.toFixed(2)} MB** (target < 20 MB: ${verdict(results.heap.maxRetainedGrowthMB < 20)}) |
| retained after the walk | ${results.heap.retainedGrowthAfterWalkMB.toFixed(2)} MB |
| trend (second half minus first half of the samples) | ${results.heap.trendSecondHalfMinusFirstHalfMB.toFixed(2)} MB |
| peak growth without forcing GC (garbage not yet collected) | ${results.heap.peakGrowthWithoutGcMB.toFixed(2)} MB |

Bytes allocated per page (one more walk of each, under V8's sampling heap profiler, collected
objects included; unlike time, not changed by the load of the machine):

| | KB per page | more than the row above |
|---|---|---|
| fetch loop | ${allocated.fetchKB.toFixed(1)} | |
| the fetch loop through ky | ${allocated.kyKB.toFixed(1)} | ${(allocated.kyKB - allocated.fetchKB).toFixed(1)} (ky) |
| SDK with \`validation: 'off'\`, by \`.pages()\` | ${allocated.sdkOffPagesKB.toFixed(1)} | ${(allocated.sdkOffPagesKB - allocated.kyKB).toFixed(1)} (the SDK's request pipeline and pages) |
| SDK with \`validation: 'off'\`, item by item | ${allocated.sdkOffKB.toFixed(1)} | ${(allocated.sdkOffKB - allocated.sdkOffPagesKB).toFixed(1)} (\`for await\` per item) |
| SDK walk | ${allocated.sdkKB.toFixed(1)} | ${(allocated.sdkKB - allocated.sdkOffKB).toFixed(1)} (validation) |

Per round (ms, SDK/fetch/SDK without validation/the same by pages/ky loop): ${rounds.map((round) => `${round.sdkMs.toFixed(0)}/${round.fetchMs.toFixed(0)}/${round.sdkOffMs.toFixed(0)}/${round.sdkOffPagesMs.toFixed(0)}/${round.kyMs.toFixed(0)}`).join(', ')}.
`;
    writeFileSync(new URL('results.md', import.meta.url), markdown);
    console.log(markdown);
  } finally {
    child.kill();
  }
}
