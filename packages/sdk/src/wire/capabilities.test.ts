import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES, type Capability, ROLE_CAPABILITIES } from './capabilities.js';
import { ROLE_VALUES } from './roles.js';

// The roles-and-capabilities table of the API contract, read as it is written there: its header
// names the roles, each row a capability and, per role, `yes` or `no`.
const contract = readFileSync(new URL('../../../../docs/api-contract.md', import.meta.url), 'utf8');
const section = contract.split('## Roles and capabilities')[1]?.split('\n## ')[0] ?? '';
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
const [header = [], ...body] = rows;

describe('the capability matrix', () => {
  it('has the ten capabilities and four roles of the API contract, in its order', () => {
    expect(header).toEqual(['Capability', ...ROLE_VALUES]);
    expect(body.map(([capability]) => capability)).toEqual([...CAPABILITIES]);
    expect(CAPABILITIES).toHaveLength(10);
    expect(ROLE_VALUES).toHaveLength(4);
    // The server checks nothing else: no capability beyond the table.
    expect(Object.keys(ROLE_CAPABILITIES)).toEqual([...ROLE_VALUES]);
  });

  it('gives each role exactly the capabilities the table marks yes, in the table order', () => {
    for (const [index, role] of ROLE_VALUES.entries()) {
      const marked = body
        .filter((row) => row[index + 1] === 'yes')
        .map(([capability]) => capability as Capability);
      expect(ROLE_CAPABILITIES[role], role).toEqual(marked);
    }
    for (const row of body) {
      for (const cell of row.slice(1)) expect(['yes', 'no']).toContain(cell);
    }
  });

  it('cannot be changed at run time, since the server authorizes with it', () => {
    expect(Object.isFrozen(ROLE_CAPABILITIES)).toBe(true);
    for (const role of ROLE_VALUES) expect(Object.isFrozen(ROLE_CAPABILITIES[role])).toBe(true);
  });
});
