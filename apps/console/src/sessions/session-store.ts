import type { EntityManager } from '@mikro-orm/postgresql';
import { newToken, tokenHash } from './secret-tokens';

/** A signed-in person. */
export interface ConsoleSession {
  email: string;
  /** The token every change made while signed in must carry (CSRF). */
  csrfToken: string;
  expiresAt: Date;
}

/** Starts a session in the caller's transaction; the session's own token goes only to the cookie. */
export async function createSession(em: EntityManager, sessionHash: string, email: string, now: Date, expiresAt: Date): Promise<void> {
  await em.execute(`insert into console.sessions (session_hash, email, csrf_token, created_at, expires_at) values (?, ?, ?, ?, ?)`, [
    sessionHash,
    email,
    newToken(),
    now,
    expiresAt,
  ]);
}

/** The live session of a cookie's token, if any. */
export async function findSession(em: EntityManager, token: string | undefined, now: Date): Promise<ConsoleSession | null> {
  if (!token) return null;
  const [row] = await em.execute<{ email: string; csrf_token: string; expires_at: Date }[]>(
    `select email, csrf_token, expires_at from console.sessions where session_hash = ? and expires_at > ?`,
    [tokenHash(token), now],
  );
  return row ? { email: row.email, csrfToken: row.csrf_token, expiresAt: new Date(row.expires_at) } : null;
}

export async function endSession(em: EntityManager, token: string): Promise<void> {
  await em.execute(`delete from console.sessions where session_hash = ?`, [tokenHash(token)]);
}
