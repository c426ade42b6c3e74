import type { EntityManager } from '@mikro-orm/postgresql';
import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { decideInTransaction, StreamVersionConflict } from '#platform/event-store';
import { enqueueMail } from '#platform/mail';
import { BackgroundJob, type ServiceRuntime } from '#platform/service-kit';
import { newToken, tokenHash } from '../sessions/secret-tokens';
import { signInDecider } from './sign-in.decider';
import { signInEmail } from './sign-in.email';
import { isSignInEvent, personStream } from './sign-in-stream';

export interface SignInRequestsSettings {
  consoleUrl: string;
  mailFrom: string;
}

/** Queued requests are looked for this often besides the kick each request gives (another replica's, a restart's). */
const POLL_MS = 1_000;

/**
 * Decides the sign-in requests the console has answered (console.sign_in_queue), after the answer:
 * whether the address is a member, the per-address limit, and for a member the link and its email
 * (through the mail outbox), in one transaction that also takes the request off the queue. The
 * request's own path (SignInHandler.requestLink) is the same whoever asked; what differs between a
 * member and a stranger happens here, where no answer waits on it. Replicas share the queue (a row
 * is claimed with SKIP LOCKED); a request is decided once.
 */
export class SignInRequestsWorker implements OnModuleInit, OnApplicationShutdown {
  private readonly job = new BackgroundJob('deciding sign-in requests', async () => {
    await this.drain();
  });

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly settings: SignInRequestsSettings,
  ) {}

  onModuleInit(): void {
    this.job.start(POLL_MS, this.runtime.clock);
    void this.job.run();
  }

  onApplicationShutdown(): void {
    // A round cut short rolls back: its request stays queued for the next start or another replica.
    this.job.stop();
  }

  /** A request was queued: decide it soon, once the answer is on its way. */
  kick(): void {
    setImmediate(() => void this.job.run());
  }

  /** Decides every queued request; returns how many. */
  async drain(): Promise<number> {
    let decided = 0;
    for (;;) {
      try {
        if (!(await this.decideNext())) return decided;
        decided += 1;
      } catch (error) {
        // Two replicas deciding requests of one person at once: the loser's transaction rolled back and its request waits for the next round.
        if (error instanceof StreamVersionConflict) return decided;
        throw error;
      }
    }
  }

  private decideNext(): Promise<boolean> {
    return this.runtime
      .em()
      .fork()
      .transactional(async (tx: EntityManager) => {
        const [request] = await tx.execute<{ request_id: string; email: string }[]>(
          `select request_id, email from console.sign_in_queue order by request_id limit 1 for update skip locked`,
        );
        if (!request) return false;
        const { email } = request;
        const [{ member }] = await tx.execute<{ member: boolean }[]>(`select exists (select 1 from console.members where email = ?) as member`, [email]);
        const token = newToken();
        const hash = tokenHash(token);
        const now = this.runtime.clock.now();
        await decideInTransaction({
          em: tx,
          eventStore: this.runtime.eventStore,
          decider: signInDecider,
          streamId: personStream(email),
          command: { type: 'RequestSignInLink', data: { email, tokenHash: hash, isMember: member }, metadata: { now } },
          meta: { now, appId: null, correlationId: null, causationId: null },
          project: async (projection, stored) => {
            for (const event of stored.filter(isSignInEvent)) {
              if (event.type !== 'SignInLinkIssued') continue;
              await projection.execute(`insert into console.sign_in_links (token_hash, email, expires_at) values (?, ?, ?)`, [
                hash,
                email,
                event.data.expiresAt,
              ]);
              await enqueueMail(projection, 'console', signInEmail(email, `${this.settings.consoleUrl}/sign-in/${token}`, hash), this.settings.mailFrom);
            }
          },
        });
        await tx.execute(`delete from console.sign_in_queue where request_id = ?`, [request.request_id]);
        return true;
      });
  }
}
