/**
 * @platform/sdk: the TypeScript client of the Business Messaging Platform API, and the helpers a
 * webhook receiver needs (signature verification and the subscription handshake).
 */
export { PlatformClient, DEFAULT_BASE_URL, type PlatformClientOptions } from './platform-client';
export { PlatformError, PlatformConnectionError, type ErrorDetail, type ResponseHeaders } from './platform-error';
export { verifyWebhook, WebhookVerificationError, type HeadersInput, type VerifyWebhookOptions, type WebhookVerificationFailure } from './webhook-signature';
export { answerHandshake, type HandshakeAnswer, type HandshakeQuery } from './webhook-handshake';
export { PagedList, type CursorPage } from './paged-list';
export {
  API_VERSION,
  SDK_VERSION,
  type ApiResult,
  type FetchInit,
  type FetchLike,
  type FetchResponseLike,
  type RequestOptions,
  type ResponseMeta,
} from './request-sender';
export type { SendOptions, UploadBytes } from './platform-resources';
export type * from './api-types';
