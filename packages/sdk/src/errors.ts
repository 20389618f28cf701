// The SDK's errors, one file per family; this module gathers them for the rest of the SDK.
export {
  APIError,
  type APIErrorOptions,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from './api-errors.js';
export {
  ConfigurationError,
  FollowUpError,
  type FollowUpErrorOptions,
  type ResumeFrom,
} from './follow-up-error.js';
export {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  type RequestErrorOptions,
  type ResponseIssue,
  ResponseValidationError,
} from './request-errors.js';
