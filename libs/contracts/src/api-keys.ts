import { isScope, type KeyEnvironment, type Scope } from './scopes';

/** D28: at most 2 active keys per environment, so a key can be rotated without downtime. */
export const MAX_ACTIVE_KEYS_PER_ENVIRONMENT = 2;
export const KEY_ENVIRONMENTS: readonly KeyEnvironment[] = ['sandbox', 'live'];

/** A request field that breaks a rule, as the spec's validation_failed error lists it. */
export interface KeyRequestIssue {
  field: 'environment' | 'scopes' | 'expiresAt';
  issue: string;
}

/**
 * The shape rules of a new key (the admin API's DTO holds the same), for the gateway's RPC entry and
 * the console's form alike. Whether the expiry lies in the future and the per-environment limit are
 * the key decider's to say: they depend on the time and on the app's other keys.
 */
export function apiKeyRequestIssues(request: { environment?: unknown; scopes?: unknown; expiresAt?: unknown }): KeyRequestIssue[] {
  const issues: KeyRequestIssue[] = [];
  if (!KEY_ENVIRONMENTS.includes(request.environment as KeyEnvironment)) issues.push({ field: 'environment', issue: 'must be sandbox or live' });
  const scopes = request.scopes;
  if (scopes !== undefined) {
    if (!Array.isArray(scopes) || scopes.length === 0) issues.push({ field: 'scopes', issue: 'must list at least one scope' });
    else if (!scopes.every(isScope)) issues.push({ field: 'scopes', issue: 'must be scopes of the API' });
    else if (new Set<Scope>(scopes).size !== scopes.length) issues.push({ field: 'scopes', issue: 'must not repeat a scope' });
  }
  const expiresAt = request.expiresAt;
  if (expiresAt !== undefined && expiresAt !== null && (typeof expiresAt !== 'string' || !isIsoTimestamp(expiresAt))) {
    issues.push({ field: 'expiresAt', issue: 'must be an ISO 8601 date and time' });
  }
  return issues;
}

/** A date and time with a zone, as `Date.toISOString()` writes it or with an offset. */
function isIsoTimestamp(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}
