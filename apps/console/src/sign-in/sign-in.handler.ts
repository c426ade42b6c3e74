import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import { handleCommand } from '#platform/event-store';
import { enqueueMail } from '#platform/mail';
import type { ServiceRuntime } from '#platform/service-kit';
import { newToken, tokenHash } from '../sessions/secret-tokens';
import { createSession } from '../sessions/session-store';
import { signInDecider, SIGN_IN_WINDOW_MS, type SignInCommand } from './sign-in.decider';
import { signInEmail } from './sign-in.email';
import type { SignInEvent } from './sign-in.state';

export interface SignInSettings {
  consoleUrl: string;
  mailFrom: string;
}

const personStream = (email: string) => `person-${tokenHash(email)}`;

/** The events of a sign-in stream, as the event store hands them back. */
const isSignInEvent = (event: DomainEvent): event is DomainEvent & SignInEvent => event.type === 'SignInLinkIssued' || event.type === 'SignInLinkUsed';

/** Loads the facts, lets the sign-in decider decide, and applies what it decided in one transaction. */
export class SignInHandler {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly settings: SignInSettings,
  ) {}

  /** Asks for a link; the caller answers the same whatever happens here (but for the client's limit). */
  async requestLink(rawEmail: string, client: string): Promise<void> {
    const email = rawEmail.trim().toLowerCase();
    const now = this.runtime.clock.now();
    const token = newToken();
    const hash = tokenHash(token);
    const em = this.runtime.em();
    const [{ requests }] = await em.execute<{ requests: string }[]>(`select count(*) as requests from console.sign_in_requests where client = ? and at > ?`, [
      client,
      new Date(now.getTime() - SIGN_IN_WINDOW_MS),
    ]);
    const [{ member }] = await em.execute<{ member: boolean }[]>(`select exists (select 1 from console.members where email = ?) as member`, [email]);
    // Counted whatever the decision, so a client cannot probe addresses faster by being refused.
    await em.execute(`insert into console.sign_in_requests (client, at) values (?, ?)`, [client, now]);
    await this.decide(
      email,
      { type: 'RequestSignInLink', data: { email, tokenHash: hash, isMember: member, clientRequestsInWindow: Number(requests) }, metadata: { now } },
      async (tx, events) => {
        for (const event of events) {
          if (event.type !== 'SignInLinkIssued') continue;
          await tx.execute(`insert into console.sign_in_links (token_hash, email, expires_at) values (?, ?, ?)`, [hash, email, event.data.expiresAt]);
          await enqueueMail(tx, 'console', signInEmail(email, `${this.settings.consoleUrl}/sign-in/${token}`, hash), this.settings.mailFrom);
        }
      },
    );
  }

  /** Follows a link: a new session's token (for the cookie) and when it ends, or a DomainError. */
  async useLink(token: string): Promise<{ cookieToken: string; expiresAt: Date }> {
    const hash = tokenHash(token);
    const [link] = await this.runtime.em().execute<{ email: string }[]>(`select email from console.sign_in_links where token_hash = ?`, [hash]);
    const email = link?.email ?? '';
    const cookieToken = newToken();
    const now = this.runtime.clock.now();
    let expiresAt = now;
    await this.decide(
      email,
      { type: 'UseSignInLink', data: { email, tokenHash: hash, sessionHash: tokenHash(cookieToken) }, metadata: { now } },
      async (tx, events) => {
        for (const event of events) {
          if (event.type !== 'SignInLinkUsed') continue;
          expiresAt = new Date(event.data.sessionExpiresAt);
          await tx.execute(`update console.sign_in_links set used_at = ? where token_hash = ?`, [event.data.usedAt, hash]);
          await createSession(tx, event.data.sessionHash, email, now, expiresAt);
        }
      },
    );
    return { cookieToken, expiresAt };
  }

  private async decide(email: string, command: SignInCommand, apply: (tx: EntityManager, events: SignInEvent[]) => Promise<void>): Promise<void> {
    const now = command.metadata.now;
    await handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: signInDecider,
      streamId: personStream(email),
      command,
      meta: { now, appId: null, correlationId: null, causationId: null },
      project: (tx, stored) => apply(tx, stored.filter(isSignInEvent)),
    });
  }
}
