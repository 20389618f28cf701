import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completeLockfile } from './complete-lockfile.mjs';

// Manifests as the registry has them: platform builds declare where they run.
const MANIFESTS = {
  '@biomejs/cli-darwin-arm64@2.6.8': { os: ['darwin'], cpu: ['arm64'], integrity: 'sha512-darwin' },
  '@biomejs/cli-linux-x64-musl@2.6.8': {
    os: ['linux'],
    cpu: ['x64'],
    libc: ['musl'],
    integrity: 'sha512-musl',
  },
  '@biomejs/cli-linux-x64@2.6.8': {
    os: ['linux'],
    cpu: ['x64'],
    libc: ['glibc'],
    integrity: 'sha512-glibc',
  },
  'pg-cloudflare@^1.4.1': { version: '1.4.1', integrity: 'sha512-cloudflare' },
};

/** A registry that answers from MANIFESTS and records what it was asked. */
function fakeRegistry() {
  const asked = [];
  return {
    asked,
    readManifest: async ({ name, version }) => {
      asked.push(`${name}@${version}`);
      const manifest = MANIFESTS[`${name}@${version}`];
      if (!manifest) throw new Error(`404 ${name}@${version}`);
      return manifest;
    },
  };
}

/** A lockfile as `npm install` leaves it on linux-x64 with glibc: only its own build of biome. */
function installedOnLinux() {
  return {
    name: 'followup-toolkit',
    lockfileVersion: 3,
    packages: {
      '': { name: 'followup-toolkit', devDependencies: { '@biomejs/biome': '2.6.8' } },
      'node_modules/@biomejs/biome': {
        version: '2.6.8',
        integrity: 'sha512-biome',
        dev: true,
        optionalDependencies: {
          '@biomejs/cli-darwin-arm64': '2.6.8',
          '@biomejs/cli-linux-x64': '2.6.8',
          '@biomejs/cli-linux-x64-musl': '2.6.8',
        },
      },
      'node_modules/@biomejs/cli-linux-x64': {
        version: '2.6.8',
        integrity: 'sha512-glibc',
        cpu: ['x64'],
        dev: true,
        libc: ['glibc'],
        optional: true,
        os: ['linux'],
      },
    },
  };
}

describe('completeLockfile', () => {
  it("adds the other platforms' builds with the os, cpu and libc of their manifests", async () => {
    const registry = fakeRegistry();
    const { lock, added, completed } = await completeLockfile({
      lock: installedOnLinux(),
      readManifest: registry.readManifest,
    });
    expect({ added, completed }).toEqual({ added: 2, completed: 0 });
    expect(lock.packages['node_modules/@biomejs/cli-darwin-arm64']).toEqual({
      version: '2.6.8',
      integrity: 'sha512-darwin',
      cpu: ['arm64'],
      dev: true,
      optional: true,
      os: ['darwin'],
    });
    // Without libc, npm would install the musl build on a glibc Linux as well.
    expect(lock.packages['node_modules/@biomejs/cli-linux-x64-musl']).toEqual({
      version: '2.6.8',
      integrity: 'sha512-musl',
      cpu: ['x64'],
      dev: true,
      libc: ['musl'],
      optional: true,
      os: ['linux'],
    });
    expect(registry.asked.sort()).toEqual([
      '@biomejs/cli-darwin-arm64@2.6.8',
      '@biomejs/cli-linux-x64-musl@2.6.8',
    ]);
  });

  it('completes the entries an earlier run wrote without their platform', async () => {
    const before = installedOnLinux();
    before.packages['node_modules/@biomejs/cli-darwin-arm64'] = {
      version: '2.6.8',
      dev: true,
      optional: true,
    };
    const { lock, added, completed } = await completeLockfile({
      lock: before,
      readManifest: fakeRegistry().readManifest,
    });
    expect({ added, completed }).toEqual({ added: 1, completed: 1 });
    expect(lock.packages['node_modules/@biomejs/cli-darwin-arm64']).toMatchObject({
      os: ['darwin'],
      cpu: ['arm64'],
      integrity: 'sha512-darwin',
    });
  });

  it('keeps the entries npm wrote, and the order npm reads: the root, then by path', async () => {
    const before = installedOnLinux();
    const { lock } = await completeLockfile({
      lock: before,
      readManifest: fakeRegistry().readManifest,
    });
    expect(lock.packages['node_modules/@biomejs/cli-linux-x64']).toEqual(
      before.packages['node_modules/@biomejs/cli-linux-x64'],
    );
    expect(Object.keys(lock.packages)).toEqual([
      '',
      'node_modules/@biomejs/biome',
      'node_modules/@biomejs/cli-darwin-arm64',
      'node_modules/@biomejs/cli-linux-x64',
      'node_modules/@biomejs/cli-linux-x64-musl',
    ]);
    expect(Object.keys(before.packages)).toHaveLength(3);
  });

  it('records a package that runs everywhere without a platform, at the version a range found', async () => {
    const { lock } = await completeLockfile({
      lock: {
        lockfileVersion: 3,
        packages: {
          '': { name: 'app' },
          'node_modules/pg': {
            version: '8.23.1',
            optionalDependencies: { 'pg-cloudflare': '^1.4.1' },
          },
        },
      },
      readManifest: fakeRegistry().readManifest,
    });
    expect(lock.packages['node_modules/pg-cloudflare']).toEqual({
      version: '1.4.1',
      integrity: 'sha512-cloudflare',
      optional: true,
    });
  });

  it('names the package whose manifest it could not read', async () => {
    await expect(
      completeLockfile({
        lock: installedOnLinux(),
        readManifest: async () => {
          throw new Error('ENOTFOUND');
        },
      }),
    ).rejects.toThrow(
      /could not read the manifest of @biomejs\/cli-(darwin-arm64|linux-x64-musl)@2\.6\.8/,
    );
  });

  it("leaves nothing to do in the repository's lockfile: every platform build says where it runs", async () => {
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
    const result = await completeLockfile({
      lock,
      readManifest: async ({ name, version }) => {
        throw new Error(`${name}@${version} lacks its platform in package-lock.json`);
      },
    });
    expect({ added: result.added, completed: result.completed }).toEqual({
      added: 0,
      completed: 0,
    });
    const biomeForWindows = lock.packages['node_modules/@biomejs/cli-win32-x64'];
    expect(biomeForWindows).toMatchObject({ os: ['win32'], cpu: ['x64'], optional: true });
  });
});
