import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  appUserIdFor,
  derivedUuidv7,
  ID_PREFIX,
  newId,
  type ChatMessageType,
  type ConsentStatus,
  type DomainEvent,
  type KeyEnvironment,
  type MessageHandedOver,
  type MediaKind,
  type MessageMediaFile,
  type OutboundMediaFile,
  type RpcCaller,
  type AppStatus,
  type UserStatus,
} from '@platform/contracts';
import { DomainError } from '@platform/errors';
import { decideInTransaction } from '@platform/event-store';
import { RpcDispatcher } from '@platform/kafka';
import { isoTime, ServiceRuntime, type DbTimestamp } from '@platform/service-kit';
import { messageDecider } from '../messages/message.decider';
import { projectMessageEvents } from '../messages/message.projection';
import type { MediaFacts, SendFacts } from '../messages/send-rules';
import { MESSAGING_CONFIG, type MessagingConfig } from '../messaging.config';

/** What the gateway passes after its own checks (DESIGN section 3): the validated body and the key's context. */
export interface SendMessageRequest {
  appId: string;
  keyEnvironment: KeyEnvironment;
  idempotencyKey: string;
  /** SHA-256 of the canonical body: the same key with another body is 422 idempotency_key_reused. */
  bodyHash: string;
  body: {
    to: { appUserId?: string; email?: string };
    type: ChatMessageType;
    text?: string | null;
    mediaId?: string | null;
    clientReference?: string | null;
  };
}

/** The spec's send acceptance (202). */
export interface SendAcceptance {
  id: string;
  status: 'accepted';
  appUserId: string;
  type: ChatMessageType;
  createdAt: string;
  clientReference: string | null;
}

/** Idempotency records live 24 hours (spec, Limits). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const WINDOW_MS = 24 * 3600 * 1000;

interface FactsRow {
  app_org_id: string;
  app_status: AppStatus;
  daily_quota: number;
  user_id: string | null;
  user_org_id: string | null;
  user_status: UserStatus | null;
  org_allows: boolean | null;
  tester: boolean;
  consent: ConsentStatus | null;
  last_user_message_at: DbTimestamp | null;
  accepted_today: number | null;
}

/**
 * POST /messages behind the gateway: one transaction claims the Idempotency-Key, decides the send
 * from messaging's projections (D9), appends MessageAccepted + MessageSent, writes the message row,
 * hands the message to the chat product (chat.outbound, via the outbox) and counts it against the
 * daily quota. A refusal rolls all of it back, releasing the key.
 */
@Injectable()
export class SendMessageHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher,
    @Inject(MESSAGING_CONFIG) private readonly config: MessagingConfig,
  ) {}

  onModuleInit(): void {
    this.rpc.register('messages.send', (p, caller) => this.send(p, caller));
  }

  async send(request: SendMessageRequest, caller: RpcCaller): Promise<{ acceptance: SendAcceptance; replayed: boolean }> {
    const now = this.runtime.clock.now();
    const messageId = newId(ID_PREFIX.message, now.getTime());
    return this.runtime.em().transactional(async (em) => {
      const tx = em as unknown as EntityManager;
      const claimed = await this.claimKey(tx, request, messageId, now);
      if (claimed !== messageId) return { acceptance: await this.replay(tx, request, claimed), replayed: true };

      const { facts, appUserId } = await this.loadFacts(tx, request, now);
      const file = await this.loadMedia(tx, request);
      facts.media = file ? file.facts : null;
      if (facts.recipient && !facts.windowOpen) facts.businessInitiatedLast24h = await this.countBusinessInitiated(tx, request.appId, appUserId, now);
      const body = request.body;
      const streamId = `message-${messageId}`;
      await decideInTransaction({
        em: tx,
        eventStore: this.runtime.eventStore,
        decider: messageDecider,
        streamId,
        command: {
          type: 'SendMessage',
          data: { messageId, type: body.type, text: body.text ?? null, media: file?.listed ?? [], clientReference: body.clientReference ?? null, facts },
        },
        meta: { now, appId: request.appId, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null },
        newStream: true,
        alsoPublish: (stored) => [this.handover(stored, facts, file?.handedOver ?? [])],
        project: (projectTx, stored) => projectMessageEvents(projectTx, stored),
      });
      await this.countAgainstQuota(tx, request.appId, facts.app.dailyQuota, now);
      return {
        acceptance: { id: messageId, status: 'accepted', appUserId, type: body.type, createdAt: now.toISOString(), clientReference: body.clientReference ?? null },
        replayed: false,
      };
    });
  }

  /** Claims (app, key) for this message, or returns the message id that holds it (a concurrent twin waits here for the first to commit). */
  private async claimKey(tx: EntityManager, request: SendMessageRequest, messageId: string, now: Date): Promise<string> {
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
    const claimed: { message_id: string }[] = await tx.execute(
      `insert into messaging.send_requests (app_id, idempotency_key, body_hash, message_id, created_at) values (?, ?, ?, ?, ?)
       on conflict (app_id, idempotency_key) do update set body_hash = excluded.body_hash, message_id = excluded.message_id, created_at = excluded.created_at
         where messaging.send_requests.created_at < ?
       returning message_id`,
      [request.appId, request.idempotencyKey, request.bodyHash, messageId, now, cutoff],
    );
    if (claimed.length === 1) return messageId;
    const [existing]: { body_hash: string; message_id: string }[] = await tx.execute(
      `select body_hash, message_id from messaging.send_requests where app_id = ? and idempotency_key = ?`,
      [request.appId, request.idempotencyKey],
    );
    if (existing.body_hash !== request.bodyHash) throw new DomainError('idempotency_key_reused');
    return existing.message_id;
  }

  private async replay(tx: EntityManager, request: SendMessageRequest, messageId: string): Promise<SendAcceptance> {
    const [row]: { app_user_id: string; type: ChatMessageType; created_at: DbTimestamp; client_reference: string | null }[] = await tx.execute(
      `select app_user_id, type, created_at, client_reference from messaging.messages where message_id = ? and app_id = ?`,
      [messageId, request.appId],
    );
    return { id: messageId, status: 'accepted', appUserId: row.app_user_id, type: row.type, createdAt: isoTime(row.created_at), clientReference: row.client_reference };
  }

  /** Everything D9 looks at, in one query over messaging's projections. */
  private async loadFacts(tx: EntityManager, request: SendMessageRequest, now: Date): Promise<{ facts: SendFacts; appUserId: string }> {
    const to = request.body.to;
    const byEmail = typeof to.email === 'string';
    let userId: string | null;
    let appUserId: string;
    if (byEmail) {
      const [user]: { user_id: string }[] = await tx.execute(`select user_id from messaging.recipients where email = ?`, [to.email!.toLowerCase()]);
      userId = user?.user_id ?? null;
      appUserId = userId ? appUserIdFor(this.config.appUserIdSecret, request.appId, userId) : '';
    } else {
      appUserId = to.appUserId!;
      userId = null;
    }
    const [row]: FactsRow[] = await tx.execute(
      `select a.org_id as app_org_id, a.status as app_status, a.daily_quota,
              r.user_id, r.org_id as user_org_id, r.status as user_status, o.allows_external_businesses as org_allows,
              exists (select 1 from messaging.testers t where t.app_id = a.app_id and t.user_id = r.user_id) as tester,
              (select c.status from messaging.consents c where c.app_id = a.app_id and c.app_user_id = ?) as consent,
              (select w.last_user_message_at from messaging.windows w where w.app_id = a.app_id and w.app_user_id = ?) as last_user_message_at,
              (select d.accepted from messaging.daily_counts d where d.app_id = a.app_id and d.day = ?) as accepted_today
       from messaging.apps a
       left join messaging.recipients r on r.user_id = coalesce(?, (select u.user_id from messaging.app_users u where u.app_id = a.app_id and u.app_user_id = ?))
       left join messaging.orgs o on o.org_id = r.org_id
       where a.app_id = ?`,
      [appUserId, appUserId, utcDay(now), userId, appUserId, request.appId],
    );
    if (!row) throw new DomainError('internal_error', 'The app has not reached the messaging service yet; retry with the same Idempotency-Key.');
    const lastMessage = row.last_user_message_at === null ? null : new Date(row.last_user_message_at).getTime();
    const facts: SendFacts = {
      keyEnvironment: request.keyEnvironment,
      app: { appId: request.appId, orgId: row.app_org_id, status: row.app_status, dailyQuota: row.daily_quota },
      addressedBy: byEmail ? 'email' : 'appUserId',
      recipient:
        row.user_id === null
          ? null
          : { userId: row.user_id, appUserId, orgId: row.user_org_id!, status: row.user_status!, orgAllowsExternalBusinesses: row.org_allows ?? false },
      isAcceptedTester: row.tester,
      consent: row.consent,
      media: null,
      windowOpen: lastMessage !== null && now.getTime() < lastMessage + WINDOW_MS,
      businessInitiatedLast24h: 0,
      acceptedToday: row.accepted_today ?? 0,
    };
    return { facts, appUserId };
  }

  /** The media of a media message, from messaging's projection of media.events (D9 media checks, D11). */
  private async loadMedia(tx: EntityManager, request: SendMessageRequest): Promise<{ facts: MediaFacts; listed: MessageMediaFile[]; handedOver: OutboundMediaFile[] } | null> {
    if (request.body.type === 'text') return null;
    const [row]: { kind: MediaKind; status: 'pending_upload' | 'ready' | 'invalid'; mime_type: string; file_name: string; size: string; object_key: string }[] = await tx.execute(
      `select kind, status, mime_type, file_name, size, object_key from messaging.media where media_id = ? and app_id = ?`,
      [String(request.body.mediaId), request.appId],
    );
    if (!row) return { facts: { found: false }, listed: [], handedOver: [] };
    const mediaId = String(request.body.mediaId);
    const size = Number(row.size);
    return {
      facts: { found: true, kind: row.kind, status: row.status, mimeType: row.mime_type, fileName: row.file_name, size },
      listed: [{ id: mediaId, mimeType: row.mime_type, fileName: row.file_name, size }],
      handedOver: [{ mediaId, objectKey: row.object_key, fileName: row.file_name, mimeType: row.mime_type, size }],
    };
  }

  /** D7 under a per-(app, user) lock, so concurrent business-initiated sends cannot pass the cap together. */
  private async countBusinessInitiated(tx: EntityManager, appId: string, appUserId: string, now: Date): Promise<number> {
    await tx.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`bi:${appId}:${appUserId}`]);
    const [row]: { n: string }[] = await tx.execute(
      `select count(*) as n from messaging.messages where app_id = ? and app_user_id = ? and business_initiated and created_at > ?`,
      [appId, appUserId, new Date(now.getTime() - WINDOW_MS)],
    );
    return Number(row.n);
  }

  /** DESIGN D3: the handoff to the chat product goes out through the outbox, in the same transaction. */
  private handover(events: DomainEvent[], facts: SendFacts, media: OutboundMediaFile[]): DomainEvent {
    const accepted = events.find((e) => e.type === 'MessageAccepted')!;
    const sent = events.find((e) => e.type === 'MessageSent')!;
    const d = accepted.data as { messageId: string; appUserId: string; userId: string; type: ChatMessageType; text: string | null };
    const handover: DomainEvent<'MessageHandedOver', MessageHandedOver['data']> = {
      ...sent,
      eventId: derivedUuidv7(new Date(sent.occurredAt).getTime(), `${sent.eventId}:handover`),
      type: 'MessageHandedOver',
      causationId: sent.eventId,
      data: { messageId: d.messageId, appId: facts.app.appId, userId: d.userId, appUserId: d.appUserId, type: d.type, text: d.text, media },
    };
    return handover;
  }

  /** D8: the last statement before commit, so the per-app counter row is locked as briefly as possible. */
  private async countAgainstQuota(tx: EntityManager, appId: string, dailyQuota: number, now: Date): Promise<void> {
    const [row]: { accepted: number }[] = await tx.execute(
      `insert into messaging.daily_counts (app_id, day, accepted) values (?, ?, 1)
       on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted + 1 returning accepted`,
      [appId, utcDay(now)],
    );
    if (row.accepted > dailyQuota) throw new DomainError('daily_quota_exceeded');
  }
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
