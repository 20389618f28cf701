import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS, vendorProfiles } from '@followup/webhooks';

/**
 * @internal The key under which an integer query parameter carries its bounds in the schema's
 * metadata: the parameter is validated as a string of digits (a query string has no numbers), and
 * documented as the integer it stands for. See {@link polishDocument}.
 */
export const INTEGER_PARAMETER_META = 'x-followup-integer';

type Json = Record<string, unknown>;
type Operation = Json & {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Json & { schema?: Json }>;
  responses?: Record<string, Json & { content?: Record<string, Json> }>;
};

const successDescriptions: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: processing continues afterwards',
  '204': 'No content',
};

/** Operation ids for the routes whose derived name would read badly. */
const operationIds: Record<string, string> = {
  'GET /healthz': 'getHealth',
  'GET /livez': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /api/audit': 'listAuditEntries',
  'POST /api/inbox/webhook': 'receiveInboxWebhook',
  'POST /api/ehr/webhooks/{ehr}': 'receiveEhrWebhook',
  'GET /api/messages': 'listMessages',
  'GET /api/me': 'getMe',
  'GET /api/contacts/changes': 'listContactChanges',
  'POST /api/contacts/batch': 'upsertContacts',
  'GET /api/deliveries/{id}/attempts': 'listDeliveryAttempts',
  'POST /api/users/invitations': 'inviteUser',
  'POST /api/users/{id}/disable': 'disableUser',
  'DELETE /api/users/{id}/sessions': 'revokeUserSessions',
};

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');

const singular = (word: string) =>
  word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.replace(/s$/, '');

/**
 * @internal The `operationId` of an operation (client generators name their methods by it):
 * `listContacts`, `getContact`, `createContact`, `updateContact`, `deleteContact`,
 * `countContacts` for a collection and its items, a fixed name for the few routes that are not
 * one, and `<method><Path>` for anything else, so that every operation has a unique one.
 */
export function operationIdOf(method: string, path: string): string {
  const known = operationIds[`${method} ${path}`];
  if (known) return known;
  const match = /^\/api\/([a-z-]+)(?:\/(\{id\}|count))?$/.exec(path);
  if (match?.[1]) {
    const collection = pascal(match[1]);
    const item = pascal(singular(match[1]));
    const id = match[2];
    if (id === undefined && method === 'GET') return `list${collection}`;
    if (id === undefined && method === 'POST') return `create${item}`;
    if (id === 'count' && method === 'GET') return `count${collection}`;
    if (id === '{id}') {
      const verb = { GET: 'get', PATCH: 'update', PUT: 'replace', DELETE: 'delete' }[method];
      if (verb) return `${verb}${item}`;
    }
  }
  return `${method.toLowerCase()}${pascal(path)}`;
}

/**
 * @internal Removes, in place, the ±2^53−1 bounds zod gives every integer, which say nothing to
 * a reader.
 */
export function dropSafeIntegerBounds(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropSafeIntegerBounds(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const schema = value as Json;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  for (const child of Object.values(schema)) dropSafeIntegerBounds(child);
}

/** The security of the routes that do not take a bearer token, by path. */
function securityOf(path: string): Array<Record<string, string[]>> {
  if (path === '/api/inbox/webhook') return [{ inboxSecret: [] }];
  if (path === '/api/ehr/webhooks/{ehr}') {
    return Object.values(vendorProfiles)
      .filter((profile) => profile.scheme !== 'none')
      .map((profile) => ({ [`ehrSignature_${profile.key}`]: [] }));
  }
  return [];
}

/** @internal The security schemes beside `bearerAuth`: the inbox secret and each EHR signature. */
export function webhookSecuritySchemes(): Json {
  const schemes: Json = {
    followupSignature: {
      type: 'apiKey',
      in: 'header',
      name: SIGNATURE_HEADER,
      description:
        'On the outbound webhooks FollowUp sends: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, keyed with the endpoint secret string; verify with @followup/webhooks.',
    },
    standardWebhooksSignature: {
      type: 'apiKey',
      in: 'header',
      name: STANDARD_WEBHOOK_HEADERS.signature,
      description:
        'On the outbound webhooks FollowUp sends, beside X-Service-Signature: the Standard Webhooks signature (v1,<base64>) with webhook-id and webhook-timestamp.',
    },
    inboxSecret: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Webhook-Secret',
      description:
        'POST /api/inbox/webhook: equal to INBOX_WEBHOOK_SECRET, compared in constant time.',
    },
  };
  for (const profile of Object.values(vendorProfiles)) {
    if (profile.scheme === 'none') continue;
    const what =
      profile.scheme === 'hmac-sha256-timestamped'
        ? 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">'
        : `${profile.prefix ?? ''}<hex HMAC-SHA256 of the raw body>`;
    schemes[`ehrSignature_${profile.key}`] = {
      type: 'apiKey',
      in: 'header',
      name: profile.header,
      description: `${profile.name} (POST /api/ehr/webhooks/${profile.key}): ${what}, keyed with EHR_WEBHOOK_SECRET_${profile.key.toUpperCase().replaceAll('-', '_')}.`,
    };
  }
  return schemes;
}

/**
 * @internal Turns the document @fastify/swagger generated from the route schemas into the one we
 * publish: integer query parameters as integers with their bounds and defaults, an `operationId`
 * on every operation, the security of every operation (an empty list where none is needed),
 * problem responses as `application/problem+json` referencing one `Problem` schema (each names
 * the codes the route can answer, from `routeProblemCodes`), and success responses described by
 * their meaning.
 */
export function polishDocument(document: Json, problemSchema: Json): Json {
  const components = (document.components ?? {}) as Json;
  document.components = components;
  components.schemas = { ...(components.schemas as Json | undefined), Problem: problemSchema };
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || operation === null) continue;
      operation.operationId ??= operationIdOf(method.toUpperCase(), path);
      operation.security ??= securityOf(path) ?? [];
      for (const parameter of operation.parameters ?? []) {
        const bounds = parameter.schema?.[INTEGER_PARAMETER_META] as Json | undefined;
        if (bounds) parameter.schema = { type: 'integer', ...bounds };
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const code = Number(status);
        if (code < 400) {
          if (response.description === 'Default Response') {
            response.description = successDescriptions[status] ?? 'Success';
          }
          continue;
        }
        response.description ??= 'A problem';
        response.content = {
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        };
      }
    }
  }
  // Outbound webhooks (requests we send): named, and signed with both header sets.
  const webhooks = (document.webhooks ?? {}) as Record<string, Record<string, Operation>>;
  for (const [kind, item] of Object.entries(webhooks)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null) continue;
      operation.operationId ??= `${pascal(kind).replace(/^./, (first) => first.toLowerCase())}Webhook`;
      operation.security ??= [{ followupSignature: [] }, { standardWebhooksSignature: [] }];
    }
  }
  dropSafeIntegerBounds(document);
  return document;
}
