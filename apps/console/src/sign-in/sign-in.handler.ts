import type { EntityManager } from '@mikro-orm/postgresql';
import { handleCommand } from '#platform/event-store';
import { runStatement } from '#platform/postgres';
import type { ServiceRuntime } from '#platform/service-kit';
import { newToken, tokenHash } from '../sessions/secret-tokens';
import { createSession } from '../sessions/session-store';
import { countClientRequest } from './client-requests.counter';
import { admitSignInRequest } from './sign-in-client-limit.rule';
import { signInDecider, type SignInCommand } from './sign-in.decider';
import type { SignInRequestsWorker } from './sign-in-requests.worker';
import type { SignInEvent } from './sign-in.state';
import { isSignInEvent, personStream } from './sign-in-stream';
import { markLinkUsedStatement, queueSignInRequestStatement, signInLinkStatement, type SignInLinkRow } from './sign-in.sql';

/** Loads the facts, lets the sign-in rules decide, and applies what they decided in one transaction. */
export class SignInHandler {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly requests: Pick<SignInRequestsWorker, 'kick'>,
  ) {}

  /**
   * Asks for a link. The same work whoever asked and whatever the address: the client's request is
   * counted (one atomic upsert), the client's limit decided from that count alone, and the request
   * queued, one row. Whether the address may sign in is looked at only afterwards, by
   * SignInRequestsWorker, once the answer is sent: nothing here, neither the answer nor its timing,
   * depends on it. Refused (rate_limited) past the client's limit, counted still.
   */
  async requestLink(rawEmail: string, client: string): Promise<void> {
    const email = rawEmail.trim().toLowerCase();
    const now = this.runtime.clock.now();
    const em = this.runtime.em();
    admitSignInRequest(await countClientRequest(em, client, now));
    await runStatement(em, queueSignInRequestStatement(email, now));
    this.requests.kick();
  }

  /** Follows a link: a new session's token (for the cookie) and when it ends, or a DomainError. */
  async useLink(token: string): Promise<{ cookieToken: string; expiresAt: Date }> {
    const hash = tokenHash(token);
    const [link] = await runStatement<SignInLinkRow>(this.runtime.em(), signInLinkStatement(hash));
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
          await runStatement(tx, markLinkUsedStatement(hash, event.data.usedAt));
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
