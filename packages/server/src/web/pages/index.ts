import { auditLogPage } from './audit-log-page.js';
import { contactsPages } from './contacts-pages.js';
import { dealsPages } from './deals-pages.js';
import { deliveriesPages } from './deliveries-pages.js';
import { ehrReceiptsPages } from './ehr-receipts-pages.js';
import { overviewPage } from './overview-page.js';
import { portalLinkForm } from './portal-link-form.js';
import { serviceAccountsPages } from './service-accounts-pages.js';
import { usersPages } from './users-pages.js';
import type { WebPage } from './web-page.js';
import { webhookEndpointsPages } from './webhook-endpoints-pages.js';

/**
 * @internal Every page of the web application beyond sign-in. Add a page
 * here (see src/web/README.md); it is registered inside the web application's context.
 */
export const webPages: readonly WebPage[] = [
  overviewPage,
  contactsPages,
  dealsPages,
  serviceAccountsPages,
  usersPages,
  webhookEndpointsPages,
  portalLinkForm,
  deliveriesPages,
  ehrReceiptsPages,
  auditLogPage,
];
