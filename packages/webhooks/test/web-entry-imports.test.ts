import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The /web entry must load where there is no node:crypto (Workers, browsers). This reads the
// built files (turbo builds before testing) and follows their local imports.
const dist = new URL('../dist/', import.meta.url);

function localGraph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    const source = readFileSync(new URL(file, dist), 'utf8');
    seen.set(file, source);
    for (const match of source.matchAll(/(?:from|import|require\()\s*["'](\.\/[^"']+)["']/g)) {
      pending.push((match[1] as string).slice(2));
    }
  }
  return seen;
}

describe('the built /web entry', () => {
  it('exists in both module formats', () => {
    const files = readdirSync(dist);
    expect(files).toEqual(expect.arrayContaining(['web.js', 'web.cjs', 'web.d.ts', 'web.d.cts']));
  });

  it.each(['web.js', 'web.cjs'])('%s imports nothing from node: or any package', (entry) => {
    const graph = localGraph(entry);
    for (const [file, source] of graph) {
      expect(source, file).not.toMatch(/["']node:/);
      expect(source, file).not.toMatch(/require\(["'](?!\.)/);
      expect(source, file).not.toMatch(/from\s*["'](?!\.)/);
    }
  });

  it('while the main entry does use node:crypto', () => {
    const graph = localGraph('index.js');
    expect([...graph.values()].some((source) => source.includes('node:crypto'))).toBe(true);
  });
});
