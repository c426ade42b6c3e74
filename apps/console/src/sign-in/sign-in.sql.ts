import type { Statement } from '#platform/postgres';

/** The statements of SignInHandler: the queued request, the link a token names, and its use. */

/** Queues a request for a link to `email` (lowercase), for SignInRequestsWorker. */
export function queueSignInRequestStatement(email: string, requestedAt: Date): Statement {
  return { sql: `insert into console.sign_in_queue (email, requested_at) values (?, ?)`, params: [email, requestedAt] };
}

/** A row of signInLinkStatement. */
export interface SignInLinkRow {
  email: string;
}

/** The address the link with this token hash was sent to (none for a token nobody issued). */
export function signInLinkStatement(tokenHash: string): Statement {
  return { sql: `select email from console.sign_in_links where token_hash = ?`, params: [tokenHash] };
}

/** Marks the link used, as SignInLinkUsed says. */
export function markLinkUsedStatement(tokenHash: string, usedAt: string): Statement {
  return { sql: `update console.sign_in_links set used_at = ? where token_hash = ?`, params: [usedAt, tokenHash] };
}
