import { CAPABILITIES, LIST_SORT_VALUES, ROLE_CAPABILITIES, ROLE_VALUES } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { type Capability, capabilities, hasCapability, roleCapabilities } from './capabilities.js';
import { LIST_SORTS } from './routes/keyset-list.js';
import { type Role, roles } from './tokens/role.js';

// The service interface's table, copied as it is written there, and this server's one addition
// (webhooks.manage: its webhook endpoints and deliveries, ADMIN only).
const table = `
| contacts.read | yes | yes | yes | yes |
| contacts.write | yes | yes | yes | no |
| contacts.delete | yes | no | no | no |
| deals.read | yes | yes | yes | yes |
| deals.write | yes | yes | yes | no |
| sequences.manage | yes | yes | no | no |
| campaigns.manage | yes | yes | no | no |
| audit.read | yes | yes | no | no |
| users.manage | yes | no | no | no |
| webhooks.manage | yes | no | no | no |
`;
const columns: Role[] = ['ADMIN', 'MANAGER', 'AGENT', 'READONLY'];
const expected = new Map<string, boolean>();
for (const line of table.trim().split('\n')) {
  const [capability, ...cells] = line
    .split('|')
    .map((cell) => cell.trim())
    .filter(Boolean);
  cells.forEach((cell, index) => {
    expected.set(`${columns[index]} ${capability}`, cell === 'yes');
  });
}

describe('capabilities', () => {
  it("lists the interface's nine capabilities, webhooks.manage, and four roles", () => {
    expect(capabilities).toHaveLength(10);
    expect(roles).toEqual(columns);
    expect(expected.size).toBe(40);
  });

  const cases = roles.flatMap((role) =>
    capabilities.map((capability) => [role, capability] as const),
  );
  it.each(cases)('%s holds %s exactly as the matrix says', (role: Role, capability: Capability) => {
    expect(hasCapability(role, capability)).toBe(expected.get(`${role} ${capability}`));
  });

  it("keeps no copy of the SDK's wire contract: roles, capabilities, matrix and list orders", () => {
    expect(roles).toBe(ROLE_VALUES);
    expect(capabilities).toBe(CAPABILITIES);
    expect(LIST_SORTS).toBe(LIST_SORT_VALUES);
    for (const role of ROLE_VALUES) {
      expect([...roleCapabilities[role]]).toEqual(ROLE_CAPABILITIES[role]);
    }
  });

  it('gives nothing to an unknown role', () => {
    expect(hasCapability('OWNER' as Role, 'contacts.read')).toBe(false);
  });
});
