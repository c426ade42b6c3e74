/** The only public API version (D29). Sent as `Svc-Version` on every response, in ping and in every event envelope. */
export const API_VERSION = '2026-10-01';
export const SUPPORTED_API_VERSIONS: readonly string[] = [API_VERSION];
/** Path prefix of the public API. */
export const PUBLIC_BASE_PATH = '/platform/v1';
/** Path prefix of the admin API (separate port). */
export const ADMIN_BASE_PATH = '/admin/v1';
