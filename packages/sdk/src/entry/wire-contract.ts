// Part of the SDK's entry point (src/index.ts re-exports this module whole): the wire contract,
// every list the wire carries, written once; the server, its OpenAPI document, its log redaction
// and the tests import these (see src/wire/README.md).
export { CAPABILITIES, type Capability, ROLE_CAPABILITIES } from '../wire/capabilities.js';
export {
  ENDPOINT_EVENT_KINDS,
  type EndpointEventKind,
  WEBHOOK_EVENT_KINDS,
  type WebhookEventKind,
} from '../wire/event-kinds.js';
export {
  BODY_LIMIT_BYTES,
  CONTACT_BATCH_MAX,
  INPUT_LIMITS,
  LIST_LIMITS,
  WEBHOOK_ENDPOINT_LIMITS,
} from '../wire/limits.js';
export { LIST_SORT_VALUES } from '../wire/list-sorts.js';
export {
  isProblemCode,
  PROBLEM_CODES,
  PROBLEM_TYPE_PREFIX,
  type ProblemCode,
  type ProblemCodeDefinition,
  type ProblemScope,
  problemCodesOf,
  problemType,
} from '../wire/problem-codes.js';
export { ROLE_VALUES, type Role } from '../wire/roles.js';
export {
  CSRF_TOKEN_HEADER,
  INBOX_SECRET_HEADER,
  SECRET_HEADERS,
} from '../wire/secret-headers.js';
export {
  splitToken,
  TOKEN_PATTERN,
  TOKEN_PREFIX,
  TOKEN_SECRET_BYTES,
  TOKEN_SECRET_LENGTH,
  type TokenParts,
} from '../wire/token-grammar.js';
export { DELIVERY_HEADER, EVENT_HEADER } from '../wire/webhook-headers.js';
