// Loads the built package (run `npm run build` first: the test task depends on the build).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const dist = new URL('../dist/', import.meta.url);
const require = createRequire(import.meta.url);

describe('the built package', () => {
  it('is recognised across its ESM and CommonJS copies by isInstance, not instanceof', async () => {
    const esm = (await import(new URL('index.js', dist).href)) as typeof import('../src/index.js');
    const cjs = require(new URL('index.cjs', dist).pathname) as typeof import('../src/index.js');
    expect(esm.FollowUpError).not.toBe(cjs.FollowUpError);
    let thrown: unknown;
    try {
      new cjs.FollowUp({ token: 'nope', baseUrl: 'http://127.0.0.1:9' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown instanceof esm.ConfigurationError).toBe(false);
    expect(esm.ConfigurationError.isInstance(thrown)).toBe(true);
    expect(esm.FollowUpError.isInstance(thrown)).toBe(true);
    expect(esm.APIError.isInstance(thrown)).toBe(false);

    const client = new esm.FollowUp({
      token: 'hns_sa_1.abc',
      baseUrl: 'http://127.0.0.1:9',
      maxRetries: 0,
    });
    const failure = await client.contacts.get('con_1').catch((error: unknown) => error);
    expect(cjs.APIConnectionError.isInstance(failure)).toBe(true);
    expect(cjs.APIError.isInstance(failure)).toBe(false);
    expect(Object.keys(esm).sort()).toEqual(Object.keys(cjs).sort());
  });

  it('imports no node: module in either build of either entry', () => {
    const chunks = readdirSync(dist).filter((file) => /^chunk-.*\.js$/.test(file));
    for (const file of [
      'index.js',
      'index.cjs',
      'receiver-checks.js',
      'receiver-checks.cjs',
      ...chunks,
    ]) {
      const code = readFileSync(new URL(file, dist), 'utf8');
      expect(code).not.toMatch(/\bfrom\s*["']node:/);
      expect(code).not.toMatch(/\brequire\(\s*["']node:/);
      expect(code).not.toMatch(/\bimport\(\s*["']node:/);
      expect(code).not.toMatch(/from\s*["']@followup\/webhooks["']/);
      expect(code).not.toMatch(/require\(\s*["']@followup\/webhooks["']/);
    }
  });
});
