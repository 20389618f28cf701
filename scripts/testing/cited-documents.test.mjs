// Comments explain why, and cite files in this repository, never a document outside it
// (CONTRIBUTING.md, Conventions): a reader must be able to open what a comment points at. This
// test reads the comments of every tracked source file of the packages, the scripts and the
// examples, and fails on a Markdown document they name that the repository does not hold.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|sh)$/;

// Names in comments that look like documents but are not citations: each says what it is.
const NOT_CITATIONS = [
  // The file a run with BENCH_RESULTS=name writes: a pattern, not a document.
  { file: 'packages/server/bench/server.bench.mjs', name: 'bench/name.md' },
];

/**
 * The text of the comments of a source file: `/* … *\/` blocks, `//` lines, and `#` lines where
 * `shell` is set.
 */
function commentsOf(text, { shell = false } = {}) {
  const blocks = text.match(/\/\*[\s\S]*?\*\//g) ?? [];
  const lines = text.match(/(?:^|[^:'"`\\])\/\/.*$/gm) ?? [];
  const hashes = shell ? (text.match(/^\s*#(?!!).*$/gm) ?? []) : [];
  return [...blocks, ...lines, ...hashes].join('\n');
}

/** The Markdown documents a text names (`docs/api-contract.md`, `../README.md`). */
function citedDocuments(text) {
  return [...text.matchAll(/(?<![\w./-])([\w./-]*[\w-]+\.md)\b/g)].map(([, name]) => name);
}

/** Whether the repository holds the document a comment names: the name is a tracked path's tail. */
function held(name) {
  const path = name.replace(/^(\.\.?\/)+/, '');
  return tracked.some((file) => file === path || file.endsWith(`/${path}`));
}

describe('documents cited in comments', () => {
  it('finds the documents a comment names, and only in comments', () => {
    const source = [
      '// The contract is docs/api-contract.md; see DESIGN.md "HTTP API".',
      "const file = 'CHANGELOG.md';",
      '/** As the table of SECURITY.md says. */',
      '# a shell comment citing ../README.md',
    ].join('\n');
    expect(citedDocuments(commentsOf(source, { shell: true })).sort()).toEqual([
      '../README.md',
      'DESIGN.md',
      'SECURITY.md',
      'docs/api-contract.md',
    ]);
    expect(citedDocuments(commentsOf(source))).not.toContain('../README.md');
  });

  it('cites only documents the repository holds', () => {
    const outside = [];
    for (const file of tracked) {
      if (!/^(packages|scripts|examples)\//.test(file) || !SOURCE.test(file)) continue;
      const comments = commentsOf(readFileSync(`${root}${file}`, 'utf8'), {
        shell: file.endsWith('.sh'),
      });
      for (const name of citedDocuments(comments)) {
        const listed = NOT_CITATIONS.some((entry) => entry.file === file && entry.name === name);
        if (!listed && !held(name)) outside.push(`${file}: ${name}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
