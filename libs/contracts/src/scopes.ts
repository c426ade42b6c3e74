/** API key scopes (spec, Authentication 6). Keys get every scope by default. */
export const SCOPES = [
  'messages:send',
  'messages:read',
  'media:write',
  'consents:read',
  'optin_links:create',
  'profile:write',
  'webhooks:manage',
  'templates:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

export type KeyEnvironment = 'sandbox' | 'live';
export const KEY_PREFIXES: Record<KeyEnvironment, string> = { sandbox: 'qk_sb_', live: 'qk_live_' };
