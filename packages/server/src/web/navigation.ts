import type { Capability } from '../capabilities.js';
import { hasCapability } from '../capabilities.js';
import type { Role } from '../tokens/role.js';

/** One entry of the web application's navigation. */
export interface NavigationItem {
  /** The link's text: part of the contract (documentation and browser tests use it). */
  label: string;
  /** The page's path. */
  href: string;
  /** The capability the page needs; without it the link is not shown and the page is a 403. */
  capability: Capability;
}

/**
 * The navigation, in order. The labels and the capabilities are the contract of the web
 * application; a page registers at its `href` with `requirePageCapability(capability)`.
 */
export const navigation: readonly NavigationItem[] = [
  { label: 'Contacts', href: '/contacts', capability: 'contacts.read' },
  { label: 'Deals', href: '/deals', capability: 'deals.read' },
  { label: 'Service accounts', href: '/service-accounts', capability: 'users.manage' },
  { label: 'Users', href: '/users', capability: 'users.manage' },
  { label: 'Webhook endpoints', href: '/webhook-endpoints', capability: 'webhooks.manage' },
  { label: 'Deliveries', href: '/deliveries', capability: 'webhooks.manage' },
  { label: 'EHR receipts', href: '/ehr-receipts', capability: 'audit.read' },
  { label: 'Audit log', href: '/audit-log', capability: 'audit.read' },
];

/** The navigation entries a role may see. */
export function navigationFor(role: Role): NavigationItem[] {
  return navigation.filter((item) => hasCapability(role, item.capability));
}
