import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { OPTION_VARIABLES } from '../src/cli/option-variables.js';
import { type DockerfileStage, parseCopy, parseDockerfile } from './support/dockerfile.js';
import { parseSystemdUnit } from './support/systemd-unit.js';

// No container runtime and no hadolint run here: these checks read the deployment files as the
// README documents them (packages/server/README.md, "Deployment") and hold them to what an
// operator relies on.
const deploy = fileURLToPath(new URL('../deploy/', import.meta.url));
const repositoryRoot = resolve(deploy, '../../..');
const read = (name: string) => readFileSync(join(deploy, name), 'utf8');
const ROOT_USERS = new Set(['root', '0']);

const stages = parseDockerfile(read('Dockerfile'));
const runStage = stages.at(-1) as DockerfileStage;
const all = (stage: DockerfileStage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.keyword === keyword);
/** The final stage's `ENV` settings, `NAME=value` pairs (one or several per instruction). */
const runEnvironment = Object.fromEntries(
  all(runStage, 'ENV').flatMap(({ args }) =>
    [...args.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1], match[2]]),
  ),
);

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

describe('the Dockerfile', () => {
  it('builds in one stage and runs from another, as a user that is not root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const users = all(runStage, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)?.args.split(':')[0] ?? '';
    expect(ROOT_USERS.has(user)).toBe(false);
    // The user is made in that stage, so the image does not depend on the base having it.
    expect(
      all(runStage, 'RUN').some(({ args }) => args.includes(`useradd`) && args.includes(user)),
    ).toBe(true);
  });

  it('runs only production dependencies and built files', () => {
    const copies = all(runStage, 'COPY').map(({ args }) => parseCopy(args));
    expect(copies.every((copy) => copy.flags.from !== undefined)).toBe(true);
    // Installed packages come from the stage that installed production dependencies alone.
    const installed = copies.filter((copy) => copy.sources.some((s) => s.endsWith('node_modules')));
    expect(installed.length).toBeGreaterThan(0);
    expect(installed.every((copy) => copy.flags.from === 'production-dependencies')).toBe(true);
    const dependencies = stages.find((stage) => stage.name === 'production-dependencies');
    expect(
      all(dependencies as DockerfileStage, 'RUN')
        .map(({ args }) => args)
        .join(' '),
    ).toMatch(/npm ci --omit=dev --workspace @followup\/server/);
  });

  it('checks readiness on /readyz of the port it exposes', () => {
    const healthchecks = all(runStage, 'HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    expect(healthchecks[0]?.args).toMatch(/ CMD .*127\.0\.0\.1:\$\{process\.env\.PORT\}\/readyz/);
    expect(runEnvironment.PORT).toBe('3000');
    expect(all(runStage, 'EXPOSE').map(({ args }) => args)).toContain(runEnvironment.PORT);
    // Beyond loopback, or a container's port would reach nothing.
    expect(runEnvironment.HOST).toBe('0.0.0.0');
  });

  it("keeps the embedded database in a volume owned by the server's user", () => {
    const dataDir = runEnvironment.FOLLOWUP_DATA_DIR;
    expect(dataDir).toMatch(/^\//);
    const volumes = all(runStage, 'VOLUME').map(({ args }) => args);
    expect(volumes.join(' ')).toContain(`"${dataDir}"`);
    // Ownership set after VOLUME would be thrown away: the chown comes first.
    const index = (keyword: string, test: (args: string) => boolean) =>
      runStage.instructions.findIndex((i) => i.keyword === keyword && test(i.args));
    const user = all(runStage, 'USER').at(-1)?.args ?? '';
    const chown = index('RUN', (args) => args.includes(`chown ${user}:${user} ${dataDir}`));
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(chown).toBeLessThan(index('VOLUME', () => true));
  });

  it('copies only what exists: repository paths, and earlier stages by name', () => {
    for (const [at, stage] of stages.entries()) {
      const earlier = new Set(stages.slice(0, at).map((s) => s.name));
      for (const { args } of all(stage, 'COPY')) {
        const copy = parseCopy(args);
        if (copy.flags.from === undefined) {
          for (const source of copy.sources) {
            expect(existsSync(join(repositoryRoot, source)), source).toBe(true);
          }
          continue;
        }
        expect(earlier.has(copy.flags.from), `stage ${copy.flags.from}`).toBe(true);
        for (const source of copy.sources) {
          // Built files and installed packages exist once the earlier stage ran; the rest is ours.
          const path = source.replace(/^\/src\//, '');
          if (/(^|\/)(dist|node_modules)$/.test(path)) continue;
          expect(existsSync(join(repositoryRoot, path)), source).toBe(true);
        }
      }
    }
    const entrypoint = JSON.parse(all(runStage, 'ENTRYPOINT')[0]?.args ?? '[]') as string[];
    expect(existsSync(join(repositoryRoot, entrypoint[1] ?? ''))).toBe(true);
  });

  it("leaves the host's node_modules and builds out of the build context", () => {
    const ignored = read('Dockerfile.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });
});

describe('compose.yaml', () => {
  const servers = Object.entries(compose.services).filter(([name]) => name !== 'postgres');

  it('runs PostgreSQL with a health check', () => {
    const postgres = compose.services.postgres;
    expect(postgres?.image).toMatch(/^postgres:\d+/);
    expect(JSON.stringify(postgres?.healthcheck?.test)).toContain('pg_isready');
  });

  it('runs two server instances from the Dockerfile, each on PostgreSQL once it is healthy', () => {
    expect(servers).toHaveLength(2);
    const hostPorts = new Set<string>();
    for (const [name, server] of servers) {
      expect(resolve(deploy, server.build?.context ?? ''), name).toBe(repositoryRoot);
      expect(server.build?.dockerfile).toBe('packages/server/deploy/Dockerfile');
      // As compose interpolates it: a variable's value in place of each `${…}`.
      const databaseUrl = (server.environment?.DATABASE_URL ?? '').replace(/\$\{[^}]*\}/g, 'x');
      expect(new URL(databaseUrl).hostname).toBe('postgres');
      // start refuses a non-loopback host with the inbox open: the secret must be given.
      expect(server.environment?.INBOX_WEBHOOK_SECRET).toMatch(/^\$\{INBOX_WEBHOOK_SECRET:\?/);
      expect(server.depends_on?.postgres?.condition).toBe('service_healthy');
      // Only variables the server reads, none set empty (an empty PUBLIC_URL is refused).
      const known = new Set<string>([...Object.values(OPTION_VARIABLES), 'INBOX_WEBHOOK_SECRET']);
      for (const [variable, value] of Object.entries(server.environment ?? {})) {
        expect(known.has(variable) || variable.startsWith('EHR_WEBHOOK_SECRET_'), variable).toBe(
          true,
        );
        expect(value, variable).not.toMatch(/^$|^\$\{\w+:?-\}$/);
      }
      expect(JSON.stringify(server.healthcheck?.test)).toContain(
        `127.0.0.1:${runEnvironment.PORT}/readyz`,
      );
      for (const port of server.ports ?? []) {
        const parts = port.split(':');
        expect(parts.at(-1), name).toBe(runEnvironment.PORT);
        hostPorts.add(parts.slice(0, -1).join(':'));
      }
      expect(server.ports?.length, name).toBe(1);
    }
    expect(hostPorts.size).toBe(2);
  });
});

describe('followup-server.service', () => {
  const unit = parseSystemdUnit(read('followup-server.service'));
  const service = unit.get('Service') ?? new Map<string, string[]>();
  const last = (key: string) => service.get(key)?.at(-1);

  it('runs start as a user of its own, restarted on failure', () => {
    expect(last('User')).toBeDefined();
    expect(ROOT_USERS.has(last('User') ?? 'root')).toBe(false);
    expect(last('ExecStart')).toMatch(/followup-server start$/);
    expect(last('Restart')).toBe('on-failure');
    expect(unit.get('Install')?.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it('writes only its data directory, without new privileges', () => {
    const dataDir = service
      .get('Environment')
      ?.find((setting) => setting.startsWith('FOLLOWUP_DATA_DIR='))
      ?.split('=')[1];
    expect(dataDir).toBe('/var/lib/followup');
    expect(last('ReadWritePaths')?.split(' ')).toContain(dataDir);
    expect(last('NoNewPrivileges')).toBe('yes');
    expect(last('ProtectSystem')).toBe('strict');
  });

  it('is active once /readyz answers', () => {
    expect(last('ExecStartPost')).toMatch(/curl .*--fail .*--retry \d+ .*\/readyz$/);
  });
});

describe('the parsers of these checks', () => {
  const word = fc.stringMatching(/^[a-z0-9./_-]{1,12}$/);
  const instruction = fc.record({
    keyword: fc.constantFrom('RUN', 'COPY', 'ENV', 'USER', 'EXPOSE'),
    words: fc.array(word, { minLength: 1, maxLength: 6 }),
  });

  it('read a Dockerfile whatever its comments and line continuations', () => {
    fc.assert(
      fc.property(
        fc.array(instruction, { maxLength: 8 }),
        fc.infiniteStream(fc.boolean()),
        (list, breaks) => {
          const lines = ['# syntax=docker/dockerfile:1', 'FROM node:24 AS build'];
          for (const { keyword, words } of list) {
            const parts = [keyword.toLowerCase(), ...words];
            lines.push('# a comment');
            lines.push(
              parts
                .map((part, i) => (i > 0 && breaks.next().value ? `\\\n  ${part}` : part))
                .join(' '),
            );
          }
          const [stage] = parseDockerfile(lines.join('\n'));
          expect(stage?.name).toBe('build');
          expect(stage?.instructions).toEqual(
            list.map(({ keyword, words }) => ({ keyword, args: words.join(' ') })),
          );
        },
      ),
    );
  });

  it('read every value of a repeated unit setting, in order', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (values) => {
        const text = ['[Service]', '# why', ...values.map((value) => `Environment=${value}`)];
        expect(parseSystemdUnit(text.join('\n')).get('Service')?.get('Environment')).toEqual(
          values,
        );
      }),
    );
  });
});
