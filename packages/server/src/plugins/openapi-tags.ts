/**
 * @internal The tags of the published OpenAPI document, in the order `/docs` and the docs site
 * show them: every operation is filed under exactly one of these (a route's schema names it in
 * `tags`), so that no operation lands in Swagger UI's "default" group. The test of the document
 * fails on an operation without one, and on a tag listed here that no operation uses.
 */
export const OPENAPI_TAGS = [
  { name: 'Contacts', description: 'The people followed up: create, read, update, erase, sync.' },
  { name: 'Deals', description: 'What a contact may buy, by stage.' },
  { name: 'Sequences', description: 'Ordered follow-up steps.' },
  { name: 'Campaigns', description: 'Sequences run for a set of contacts.' },
  { name: 'Users', description: 'The people who sign in to the web console, and their roles.' },
  { name: 'Me', description: 'Who the caller is: account or user, role and capabilities.' },
  { name: 'Audit', description: 'Who did what, when: the audit log.' },
  { name: 'Events', description: 'What happened, as the webhooks carry it, and the event kinds.' },
  {
    name: 'Webhook endpoints',
    description: 'Where FollowUp sends its signed webhooks, and their secrets.',
  },
  {
    name: 'Deliveries',
    description: 'Each webhook sent to an endpoint, its attempts and retries.',
  },
  { name: 'Replays', description: "An endpoint's past events, sent to it again." },
  {
    name: 'Inbound webhooks',
    description: 'What others send FollowUp: forwarded e-mail (the inbox) and EHR vendor events.',
  },
  { name: 'Health', description: 'Liveness and readiness, for load balancers and orchestrators.' },
] as const;

/** @internal The name of one of {@link OPENAPI_TAGS}. */
export type OpenApiTag = (typeof OPENAPI_TAGS)[number]['name'];
