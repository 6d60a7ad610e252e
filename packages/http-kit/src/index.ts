export { HttpError, errorBody, describeZodError, errorMiddleware, methodNotAllowed, notFoundHandler } from './errors.js';
export type { ErrorLogger } from './errors.js';
export { apiKeyAuth, presentedKey, keyMatcher } from './auth.js';
export { listen } from './listen.js';
export type { Listening } from './listen.js';
export { localApiKey, configuredOrLocalKeys } from './local-key.js';
export { jsonBody, findUnsafeJson, MAX_JSON_DEPTH } from './json-body.js';
export type { JsonBodyOptions } from './json-body.js';
