import type { EntityManager } from '@mikro-orm/postgresql';
import { appUserIdFor, TOPICS, type DomainEvent, type EventOf, type UserAppEvent } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { decideInTransaction } from '#platform/event-store';
import type { CommandMetadata } from '#platform/decider';
import type { ConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { consentDecider, type ConsentCommand, type VerifiedLink } from '../consents/consent.decider';
import { projectConsentEvents } from '../consents/consent.projection';
import { verifyOptInLink } from '../optin-links/optin-link.token';

export const USER_ACTIONS_CONSUMER = 'user-actions';

export const consentStreamId = (appId: string, appUserId: string) => `consent-${appId}:${appUserId}`;

type ActionType = Exclude<UserAppEvent['type'], 'DeviceReceiptSent' | 'MessageDeliveryRefused'>;
type Who = { appUserId: string; userId: string };

/**
 * Turns what users do in the chat product (chat.user-events) into consent commands. Each event is
 * decided in the consumer's transaction with its inbox row; a refusal (Allow on an expired link,
 * say) changes nothing and is kept so the simulator can report it. Derived events take their time
 * and ids from the user's action, so replaying the topic into a fresh schema rebuilds the same consents.
 */
export function userActionsConsumer(runtime: ServiceRuntime, secrets: { appUserIdSecret: string; optInLinkSecret: string }): ConsumerSpec {
  const link = (token: string, appId: string): VerifiedLink => {
    const claims = verifyOptInLink(secrets.optInLinkSecret, token);
    return claims && claims.appId === appId ? { linkId: claims.linkId, ref: claims.ref, expiresAt: claims.expiresAt } : null;
  };
  const commands: Record<ActionType, (who: Who, metadata: CommandMetadata, event: UserAppEvent) => ConsentCommand> = {
    UserSentMessage: (who, metadata) => ({ type: 'RecordUserMessage', data: who, metadata }),
    OptInLinkOpened: (who, metadata, e) => ({
      type: 'RecordOptInLinkOpened',
      data: { ...who, link: link((e.data as { token: string }).token, e.data.appId) },
      metadata,
    }),
    OptInLinkAllowed: (who, metadata, e) => ({
      type: 'AllowOptInLink',
      data: { ...who, link: link((e.data as { token: string }).token, e.data.appId) },
      metadata,
    }),
    BusinessProfileAllowed: (who, metadata) => ({ type: 'AllowFromProfile', data: who, metadata }),
    UserStoppedApp: (who, metadata) => ({ type: 'StopApp', data: who, metadata }),
    UserBlockedApp: (who, metadata) => ({ type: 'BlockApp', data: who, metadata }),
    UserUnblockedApp: (who, metadata) => ({ type: 'UnblockApp', data: who, metadata }),
    TesterInvitationReceived: (who, metadata) => ({ type: 'RecordTesterInvitation', data: who, metadata }),
    TesterInvitationAccepted: (who, metadata) => ({ type: 'AcceptTesterInvitation', data: who, metadata }),
  };

  const decide = (em: EntityManager, appId: string, command: ConsentCommand, cause: DomainEvent) =>
    decideInTransaction({
      em,
      eventStore: runtime.eventStore,
      decider: consentDecider,
      streamId: consentStreamId(appId, command.data.appUserId),
      command,
      meta: { now: command.metadata.now, appId, correlationId: cause.correlationId, causationId: cause.eventId, idSeed: cause.eventId },
      project: (tx, events) => projectConsentEvents(tx, events),
    });

  const onUserAction = async (em: EntityManager, action: EventOf<ActionType>) => {
    const { appId, userId } = action.data;
    const who = { appUserId: appUserIdFor(secrets.appUserIdSecret, appId, userId), userId };
    const now = new Date(action.occurredAt);
    try {
      await decide(em, appId, commands[action.type](who, { now }, action), action);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await em.execute(`insert into consent.refused_user_actions (event_id, code, message, details) values (?, ?, ?, ?::jsonb) on conflict do nothing`, [
        action.eventId,
        error.code,
        error.message,
        JSON.stringify(error.details ?? null),
      ]);
      return;
    }
    if (action.type === 'UserSentMessage') {
      await extendReplyWindow(em, appId, who.appUserId, now);
    }
  };

  const onUserStatusChanged = async (em: EntityManager, event: EventOf<'UserStatusChanged'>) => {
    const d = event.data;
    if (d.status !== 'deleted') return;
    // Every app the user ever dealt with learns that the account is gone.
    const apps: { app_id: string; app_user_id: string }[] = await em.execute(
      `select app_id, app_user_id from consent.app_users where user_id = ? order by app_id`,
      [d.userId],
    );
    for (const row of apps) {
      await decide(
        em,
        row.app_id,
        { type: 'DeleteAccount', data: { appUserId: row.app_user_id, userId: d.userId }, metadata: { now: new Date(event.occurredAt) } },
        event,
      );
    }
  };

  return {
    name: USER_ACTIONS_CONSUMER,
    topics: [TOPICS.chatUserEvents],
    handlers: {
      ...Object.fromEntries(Object.keys(commands).map((type) => [type, onUserAction])),
      UserStatusChanged: onUserStatusChanged,
    },
  };
}

/** D6: the window follows the user's last message; an older event arriving late never shortens it. */
export async function extendReplyWindow(em: EntityManager, appId: string, appUserId: string, sentAt: Date): Promise<void> {
  await em.execute(
    `insert into consent.reply_windows (app_id, app_user_id, last_user_message_at) values (?, ?, ?)
     on conflict (app_id, app_user_id) do update set last_user_message_at = greatest(consent.reply_windows.last_user_message_at, excluded.last_user_message_at)`,
    [appId, appUserId, sentAt],
  );
}
