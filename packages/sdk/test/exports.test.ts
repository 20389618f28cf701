import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../src/', import.meta.url);
const index = readFileSync(new URL('index.ts', src), 'utf8');
// The entry point's parts in src/entry/, each re-exported whole by index.ts (`export * from
// './entry/….js'`), with their paths written as from src/ so that both read alike.
const entry = [
  index,
  ...[...index.matchAll(/^export \* from '\.\/(entry\/[\w-]+)\.js';$/gm)].map(([, part]) =>
    readFileSync(new URL(`${part}.ts`, src), 'utf8').replaceAll("from '../", "from './"),
  ),
].join('\n');

describe('the public API', () => {
  it('exports nothing from src/internal, as its README says', () => {
    expect(readFileSync(new URL('internal/README.md', src), 'utf8')).toMatch(
      /None of it is exported/,
    );
    expect(entry).not.toMatch(/from '\.\/internal\//);
  });

  it('exports every module of the wire contract', () => {
    const modules = readdirSync(new URL('wire/', src)).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    for (const file of modules) {
      expect(entry, file).toContain(`from './wire/${file.replace(/\.ts$/, '.js')}'`);
    }
  });
});
