// One source for every list the wire carries: the SDK's wire contract (packages/sdk/src/wire/).
// This test reads the packages' source and fails on a second copy of what the contract holds,
// spelled out again instead of imported (a second copy is how a vendor's signature header once
// escaped redaction). Comments may quote the values; code may not.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The code of a file with its comments blanked out, line numbers kept. */
function codeOf(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

// What the contract owns, and the one file that may spell each.
const owned = [
  {
    what: 'the problem type prefix',
    pattern: /urn:followup:problem:/,
    owner: [
      'packages/sdk/src/wire/problem-codes.ts',
      'packages/sdk/src/schemas/problem-details.ts',
    ],
  },
  {
    what: 'the token grammar',
    pattern: /['"/^]hns_/,
    owner: ['packages/sdk/src/wire/token-grammar.ts'],
  },
  {
    what: 'a secret-bearing or webhook header name',
    pattern:
      /['"](x-service-webhook-secret|x-csrf-token|x-service-signature|x-service-event|x-service-delivery|webhook-signature|webhook-id|webhook-timestamp)['"]/,
    owner: [
      'packages/sdk/src/wire/secret-headers.ts',
      'packages/webhooks/src/standard-webhooks.ts',
    ],
  },
  {
    what: 'the body limit',
    pattern: /=\s*1024\s*\*\s*1024\s*;/,
    owner: ['packages/sdk/src/wire/limits.ts'],
  },
  {
    what: 'a list limit (200 rows, 50 by default, offset 100,000)',
    pattern: /\blimit\b[^\n]{0,24}(?<![\w.])(200|100_000)\b|\?\?\s*50\b/i,
    owner: ['packages/sdk/src/wire/limits.ts'],
  },
];

describe('the wire contract has no second copy in the packages', () => {
  const files = ['webhooks', 'sdk', 'server', 'cli'].flatMap((name) =>
    sourceFiles(join(root, 'packages', name, 'src')),
  );

  it.each(owned)('$what is spelled only where the contract keeps it', ({ pattern, owner }) => {
    const copies = [];
    for (const file of files) {
      const name = relative(root, file);
      if (owner.includes(name)) continue;
      codeOf(readFileSync(file, 'utf8'))
        .split('\n')
        .forEach((line, index) => {
          if (pattern.test(line)) copies.push(`${name}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(copies).toEqual([]);
  });

  it('reads code, not comments', () => {
    expect(codeOf('const a = 1; // urn:followup:problem:x\n/* hns_ */ const b = 2;')).not.toMatch(
      /urn|hns_/,
    );
    expect(codeOf("const url = 'https://example.com/a';")).toContain('https://example.com/a');
  });
});
