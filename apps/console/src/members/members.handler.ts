import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { decideInTransaction, handleCommand } from '#platform/event-store';
import { enqueueMail } from '#platform/mail';
import { runStatement } from '#platform/postgres';
import type { ServiceRuntime } from '#platform/service-kit';
import { newToken, tokenHash } from '../sessions/secret-tokens';
import { createSession } from '../sessions/session-store';
import { SIGNED_IN_TTL_MS } from '../sign-in/sign-in.decider';
import { invitationEmail } from './invitation.email';
import { membershipDecider, type MembershipCommand } from './membership.decider';
import { appNameStatement, invitationStatement, type AppNameRow, type InvitationRow } from './members.sql';
import { isMembershipEvent, projectMembership } from './membership.projection';

export const membersStream = (appId: string) => `app-members-${appId}`;

/** Decides membership commands and applies them (projection, emails) in their transaction. */
export class MembersHandler {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly settings: { consoleUrl: string; mailFrom: string },
  ) {}

  /** In a consumer's inbox transaction: the app's creator becomes its first owner. */
  static async addCreator(runtime: ServiceRuntime, em: EntityManager, appId: string, email: string, cause: DomainEvent): Promise<void> {
    const now = new Date(cause.occurredAt);
    await decideInTransaction({
      em,
      eventStore: runtime.eventStore,
      decider: membershipDecider,
      streamId: membersStream(appId),
      command: { type: 'AddCreator', data: { appId, email }, metadata: { now } },
      meta: { now, appId, correlationId: cause.correlationId, causationId: cause.eventId },
      project: (tx, stored) => projectMembership(tx, stored),
    });
  }

  async invite(appId: string, by: string, rawEmail: string): Promise<void> {
    const email = rawEmail.trim().toLowerCase();
    const token = newToken();
    const hash = tokenHash(token);
    await this.decide(appId, { type: 'InviteMember', data: { appId, email, tokenHash: hash, by }, metadata: { now: this.runtime.clock.now() } }, async (tx) => {
      const [app] = await runStatement<AppNameRow>(tx, appNameStatement(appId));
      const link = `${this.settings.consoleUrl}/invitations/${token}`;
      await enqueueMail(tx, 'console', invitationEmail(email, app?.display_name ?? appId, by, link, hash), this.settings.mailFrom);
    });
  }

  /**
   * What accepting the invitation would answer now, without accepting it: the decider's refusal, or
   * null when the link still works. The link's page shows a dead link's reason before any button.
   */
  async refusalOf(token: string): Promise<DomainError | null> {
    const hash = tokenHash(token);
    const em = this.runtime.em();
    const [invitation] = await runStatement<InvitationRow>(em, invitationStatement(hash));
    if (!invitation) return new DomainError('not_found', 'This invitation is not known.');
    const { state } = await this.runtime.eventStore.aggregate(em, membersStream(invitation.app_id), membershipDecider);
    try {
      membershipDecider.decide(
        { type: 'AcceptInvitation', data: { appId: invitation.app_id, tokenHash: hash }, metadata: { now: this.runtime.clock.now() } },
        state,
      );
      return null;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  /** Follows an invitation: the invitee joins and is signed in (the link proves the address). */
  async accept(token: string): Promise<{ appId: string; cookieToken: string; expiresAt: Date }> {
    const hash = tokenHash(token);
    const [invitation] = await runStatement<InvitationRow>(this.runtime.em(), invitationStatement(hash));
    // No stream to load for a token nobody issued: the decider's own answer to an unknown token.
    if (!invitation) throw new DomainError('not_found', 'This invitation is not known.');
    const now = this.runtime.clock.now();
    const cookieToken = newToken();
    const expiresAt = new Date(now.getTime() + SIGNED_IN_TTL_MS);
    await this.decide(
      invitation.app_id,
      { type: 'AcceptInvitation', data: { appId: invitation.app_id, tokenHash: hash }, metadata: { now } },
      async (tx, stored) => {
        for (const event of stored.filter(isMembershipEvent)) {
          if (event.type === 'InvitationAccepted') await createSession(tx, tokenHash(cookieToken), event.data.email, now, expiresAt);
        }
      },
    );
    return { appId: invitation.app_id, cookieToken, expiresAt };
  }

  async withdraw(appId: string, by: string, email: string): Promise<void> {
    await this.decide(appId, { type: 'WithdrawInvitation', data: { appId, email, by }, metadata: { now: this.runtime.clock.now() } });
  }

  async makeOwner(appId: string, by: string, email: string): Promise<void> {
    await this.decide(appId, { type: 'MakeOwner', data: { appId, email, by }, metadata: { now: this.runtime.clock.now() } });
  }

  async remove(appId: string, by: string, email: string): Promise<void> {
    await this.decide(appId, { type: 'RemoveMember', data: { appId, email, by }, metadata: { now: this.runtime.clock.now() } });
  }

  private async decide(appId: string, command: MembershipCommand, alongside?: (tx: EntityManager, stored: DomainEvent[]) => Promise<void>): Promise<void> {
    const now = command.metadata.now;
    await handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: membershipDecider,
      streamId: membersStream(appId),
      command,
      meta: { now, appId, correlationId: null, causationId: null },
      project: async (tx, stored) => {
        await projectMembership(tx, stored);
        await alongside?.(tx, stored);
      },
    });
  }
}
