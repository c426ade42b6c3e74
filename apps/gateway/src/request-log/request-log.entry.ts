import type { ErrorEnvelope } from '#platform/contracts';

/** What the table keeps of a path: the rest of a longer one is cut. */
export const MAX_LOGGED_PATH = 1024;
/** What the table keeps of an envelope, as JSON: a bigger one keeps its first details that fit. */
export const MAX_LOGGED_ENVELOPE = 4096;
const MAX_LOGGED_MESSAGE = 512;
const MAX_LOGGED_DETAIL_TEXT = 200;

/**
 * One entry of the request log (docs/adr/0216-request-log-off-the-request-path.md): what a
 * request was and what came of it, never its body, a success body, its key or a secret.
 */
export interface RequestLogRow {
  appId: string;
  requestId: string;
  atMs: number;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  keyPrefix: string | null;
  durationMs: number;
  errorEnvelope: ErrorEnvelope | null;
}

/** What the pipeline saw of a finished request. */
export interface SeenRequest {
  requestId: string;
  atMs: number;
  method: string;
  /** The path as requested, without the query string. */
  path: string;
  status: number;
  durationMs: number;
  /** The app and key prefix once the key was found; null when refused before. */
  key: { appId: string; prefix: string } | null;
  /** The envelope the client got and the length of its JSON, for a refusal. */
  refusal: { envelope: ErrorEnvelope; jsonLength: number } | null;
}

/**
 * The row to record for a request, or null when no app can be named: a request refused before its
 * key was found belongs to the key's app only when `knownKey` (this replica's memory, no lookup)
 * knows the key, revoked and expired keys included; without such a key there is nobody to show it to.
 */
export function requestLogRow(seen: SeenRequest, knownKey: () => { appId: string; prefix: string } | null): RequestLogRow | null {
  const key = seen.key ?? knownKey();
  if (!key) return null;
  return {
    appId: key.appId,
    requestId: seen.requestId,
    atMs: seen.atMs,
    method: seen.method,
    path: seen.path.length > MAX_LOGGED_PATH ? seen.path.slice(0, MAX_LOGGED_PATH) : seen.path,
    status: seen.status,
    errorCode: seen.refusal?.envelope.error.code ?? null,
    keyPrefix: key.prefix,
    durationMs: Math.round(seen.durationMs * 10) / 10,
    errorEnvelope: seen.refusal ? boundedEnvelope(seen.refusal.envelope, seen.refusal.jsonLength) : null,
  };
}

/** The envelope as the client got it when its JSON is small; else its message and the details that fit, each cut short. */
export function boundedEnvelope(envelope: ErrorEnvelope, jsonLength: number): ErrorEnvelope {
  if (jsonLength <= MAX_LOGGED_ENVELOPE) return envelope;
  const { details, ...error } = envelope.error;
  const bounded: ErrorEnvelope['error'] = { ...error, message: cut(error.message, MAX_LOGGED_MESSAGE) };
  let room = MAX_LOGGED_ENVELOPE - JSON.stringify({ error: bounded }).length - 20;
  const kept: NonNullable<ErrorEnvelope['error']['details']> = [];
  for (const detail of details ?? []) {
    const short = { field: cut(detail.field, MAX_LOGGED_DETAIL_TEXT), issue: cut(detail.issue, MAX_LOGGED_DETAIL_TEXT) };
    room -= JSON.stringify(short).length + 1;
    if (room < 0) break;
    kept.push(short);
  }
  return { error: kept.length > 0 ? { ...bounded, details: kept } : bounded };
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
