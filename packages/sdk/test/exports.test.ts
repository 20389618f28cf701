import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../src/', import.meta.url);
const index = readFileSync(new URL('index.ts', src), 'utf8');

describe('the public API', () => {
  it('exports nothing from src/internal, as its README says', () => {
    expect(readFileSync(new URL('internal/README.md', src), 'utf8')).toMatch(
      /None of it is exported/,
    );
    expect(index).not.toMatch(/from '\.\/internal\//);
  });

  it('exports every module of the wire contract', () => {
    const modules = readdirSync(new URL('wire/', src)).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    for (const file of modules) {
      expect(index, file).toContain(`from './wire/${file.replace(/\.ts$/, '.js')}'`);
    }
  });
});
