import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { context, propagation } from '@opentelemetry/api';
import {
  appUserIdFor,
  derivedUuidv7,
  ID_PREFIX,
  IDEMPOTENCY_KEY_TTL_MS,
  newId,
  type ChatMessageType,
  type ConsentStatus,
  type DomainEvent,
  type MessageHandedOver,
  type MediaKind,
  type MessageMediaFile,
  type OutboundMediaFile,
  type RpcCaller,
  type RpcReplyOf,
  type SendMessageCall,
  type SendMessageOutcome,
  type AppStatus,
  type UserStatus,
} from '@platform/contracts';
import { DomainError } from '@platform/errors';
import { GroupCommit, jsonRows, jsonTexts, PipelinedTransaction, type GroupOutcome, type Row, type Statement } from '@platform/event-store';
import { RpcDispatcher } from '@platform/kafka';
import { isoTime, ServiceRuntime, type DbTimestamp } from '@platform/service-kit';
import { messageDecider, type MessageCommand } from '../messages/message.decider';
import type { MessageEvent } from '../messages/message.state';
import { newOutboundMessages } from '../messages/message.projection';
import { REPLY_WINDOW_MS, replyWindowOpen, utcDay, type MediaFacts, type SendFacts } from '../messages/send-rules';
import { MESSAGING_CONFIG, type MessagingConfig } from '../messaging.config';

interface FactsRow {
  i: number;
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
}

type MediaFile = { facts: MediaFacts; listed: MessageMediaFile[]; handedOver: OutboundMediaFile[] };

/** A send waiting for its batch: the request, and what was fixed when it arrived. */
interface PendingSend {
  request: SendMessageCall;
  caller: RpcCaller;
  now: Date;
  messageId: string;
  /** The request's W3C trace context, for the outbox rows of its events (the batch runs outside it). */
  trace: Record<string, string>;
}

/** A claimed send on its way through the batch. */
interface ClaimedSend extends PendingSend {
  /** Position in the batch, where its outcome goes. */
  at: number;
  appUserId: string;
  facts: SendFacts;
  file: MediaFile | null;
}

/** Sends one batch takes at most; RPC_MAX_IN_FLIGHT (64 by default) bounds what is waiting anyway. */
const MAX_SENDS_PER_BATCH = 100;

/**
 * POST /messages behind the gateway. Concurrent sends are decided in shared batches (group commit):
 * one transaction claims every Idempotency-Key, reads the facts of all sends (D9), locks the D8
 * (and, for business-initiated sends, D7) counters they need, decides each send in arrival order,
 * then appends all MessageAccepted + MessageSent events, writes the message rows, the handoffs to
 * the chat product (chat.outbound, via the outbox) and the counts, a statement for each kind of
 * row. A refused send writes nothing and releases its key. The statements go out in two round
 * trips (three with a business-initiated send, one more with an email address), not one each
 * (PipelinedTransaction). On an idle service a batch is one send, so nothing waits for a batch to
 * fill; under load a send costs a share of one commit and of those round trips.
 */
@Injectable()
export class SendMessageHandler implements OnModuleInit {
  // One batch at a time: a second one beside it mostly waited on the first's D8 counter rows (one
  // app's sends all share a row) and split the load into smaller, costlier batches. At 500 sends/s
  // one at a time gave p50 44-57 ms and p99 116-201 against 53-84 and 130-294 for two (six
  // alternating runs), and p99 90 against 172 spread over 20 apps; the closed loop was unchanged.
  private readonly sends = new GroupCommit<PendingSend, SendMessageOutcome>((batch) => this.sendBatch(batch), { maxBatch: MAX_SENDS_PER_BATCH, maxConcurrent: 1 });
  /**
   * The sends this process has under way, by app and key: a twin from another request arriving
   * meanwhile is 409 idempotency_in_progress (422 with another body), as DESIGN section 3 answers a
   * running request, and no batch ever holds two sends of one key. The same request again (a
   * redelivery: its offset was not committed when a server stopped) is answered by the run under
   * way, as a replay. A twin in another process waits in the claim statement for the first to
   * commit, then replays it.
   */
  private readonly running = new Map<string, { bodyHash: string; requestId: string; answer: Promise<SendMessageOutcome> }>();

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
    @Inject(MESSAGING_CONFIG) private readonly config: MessagingConfig,
  ) {}

  onModuleInit(): void {
    this.rpc.register('messages.send', (p, caller) => this.send(p, caller));
    this.rpc.register('messages.heldKey', (p) => this.heldKey(p));
  }

  send(request: SendMessageCall, caller: RpcCaller): Promise<SendMessageOutcome> {
    const key = claimKey(request);
    const twin = this.running.get(key);
    if (twin !== undefined) {
      const again = twin.requestId === caller.requestId && twin.bodyHash === request.bodyHash;
      return again ? twin.answer.then(({ acceptance }) => ({ acceptance, replayed: true })) : Promise.reject(twinRefusal(twin.bodyHash, request.bodyHash));
    }
    const now = this.runtime.clock.now();
    const trace: Record<string, string> = {};
    propagation.inject(context.active(), trace);
    const answer = this.sends.submit({ request, caller, now, messageId: newId(ID_PREFIX.message, now.getTime()), trace }).finally(() => this.running.delete(key));
    this.running.set(key, { bodyHash: request.bodyHash, requestId: caller.requestId, answer });
    return answer;
  }

  /**
   * Who holds a key, for a request the gateway refuses before it is sent (an invalid body): DESIGN
   * section 3 looks the key up (step 6) before it validates the body (step 7), so a key held by
   * another body is 422 whatever this body is, and a running twin 409. `held` is the replay of the
   * holder's acceptance, or null for a free key.
   */
  async heldKey(request: Pick<SendMessageCall, 'appId' | 'idempotencyKey' | 'bodyHash'>): Promise<RpcReplyOf<'messaging', 'messages.heldKey'>> {
    const twin = this.running.get(claimKey(request));
    if (twin !== undefined) throw twinRefusal(twin.bodyHash, request.bodyHash);
    const since = new Date(this.runtime.clock.nowMs() - IDEMPOTENCY_KEY_TTL_MS);
    const [holder] = (await this.runtime.em().execute(
      `select ${HELD_COLUMNS} from messaging.send_requests s ${HOLDER_MESSAGE}
        where s.app_id = ? and s.idempotency_key = ? and s.created_at >= ?`,
      [request.appId, request.idempotencyKey, since],
    )) as HeldRow[];
    if (!holder) return { held: null };
    const outcome = replayOutcome(request, holder);
    if (outcome.ok) return { held: outcome.value };
    throw outcome.error;
  }

  private async sendBatch(batch: PendingSend[]): Promise<GroupOutcome<SendMessageOutcome>[]> {
    const outcomes: GroupOutcome<SendMessageOutcome>[] = new Array(batch.length);
    const sends = batch.map((send, at) => ({ ...send, at }));
    await PipelinedTransaction.run(this.runtime.em(), async (tx) => {
      const addressed = await this.address(tx, sends);
      // One round trip: the claims, whoever else holds a key, every send's D9 facts and media, and the
      // D8 counters locked to commit (claims, then counters, each in key order: batches never wait in a circle).
      const counters = dayCounters(sends);
      const media = mediaWanted(sends);
      const [, heldRows, factRows, counterRows, mediaRows] = await tx.query([
        claimStatement(sends),
        heldStatement(sends),
        factsStatement(addressed),
        countersStatement(counters),
        ...(media.length > 0 ? [mediaStatement(media)] : []),
      ]);
      const held = new Map(heldRows.map((row) => [rowKey(row.app_id, row.idempotency_key), row as HeldRow]));
      for (const send of sends) {
        const holder = held.get(claimKey(send.request));
        if (holder) outcomes[send.at] = replayOutcome(send.request, holder);
      }
      const claimed = sends.filter((send) => !held.has(claimKey(send.request)));

      const refused: PendingSend[] = [];
      const refuse = (send: PendingSend & { at: number }, error: unknown) => {
        outcomes[send.at] = { ok: false, error };
        refused.push(send);
      };
      const found = withFacts(claimed, addressed, factRows as FactsRow[], mediaFiles(mediaRows ?? []));
      const withFactsAt = new Set(found.map((send) => send.at));
      for (const send of claimed) if (!withFactsAt.has(send.at)) refuse(send, missingApp());
      const candidates: ClaimedSend[] = [];
      for (const send of found) {
        // Counts only grow: a send refused with none of them counted is refused whatever they are (D9 checks them last).
        const decision = decideSend(send, 0, []);
        if (decision instanceof DomainError) refuse(send, decision);
        else candidates.push(send);
      }

      // D7's facts, loaded only for the sends that may be business-initiated (the decider has the last word).
      const businessInitiated = await this.businessInitiatedSends(tx, candidates.filter((send) => send.facts.recipient && !replyWindowOpen(send.facts.lastUserMessageAt, send.now)));
      const acceptedToday = new Map(counterRows.map((row) => [rowKey(row.app_id, row.day), Number(row.accepted)]));
      // In arrival order, each send counting the ones accepted before it in this batch.
      candidates.sort((a, b) => a.at - b.at);
      const businessInitiatedHere = new Map<string, Date[]>();
      const accepted: (ClaimedSend & { events: MessageEvent[] })[] = [];
      for (const send of candidates) {
        const day = dayKey(send);
        const user = userKey(send);
        const decision = decideSend(send, acceptedToday.get(day) ?? 0, [...(businessInitiated.get(send.at) ?? []), ...(businessInitiatedHere.get(user) ?? [])]);
        if (decision instanceof DomainError) {
          refuse(send, decision);
          continue;
        }
        accepted.push({ ...send, events: decision });
        acceptedToday.set(day, (acceptedToday.get(day) ?? 0) + 1);
        if (isBusinessInitiated(decision)) businessInitiatedHere.set(user, [...(businessInitiatedHere.get(user) ?? []), send.now]);
      }

      // One more round trip writes everything and commits: events, outbox rows, message rows, counts, released keys.
      const { stored, statements: appended } = this.runtime.eventStore.appendStatements(
        accepted.map((send) => ({
          streamId: `message-${send.messageId}`,
          expectedVersion: 0,
          events: send.events,
          meta: { now: send.now, appId: send.request.appId, correlationId: send.caller.requestId ?? null, causationId: send.caller.requestId ?? null },
          alsoPublish: (events) => [handover(events, send.request.appId, send.file?.handedOver ?? [])],
          trace: send.trace,
        })),
        // The busiest writer of the database: its relay is woken in-process at the commit, not by a NOTIFY that every service's listener would take.
        { committedBy: tx },
      );
      const messages = newOutboundMessages(stored.flat());
      await tx.commit([...appended, ...(messages ? [messages] : []), ...settleStatements(counters, accepted), ...releaseStatements(refused)]);
      accepted.forEach((send) => {
        const body = send.request.body;
        outcomes[send.at] = {
          ok: true,
          value: {
            acceptance: { id: send.messageId, status: 'accepted', appUserId: send.appUserId, type: body.type, createdAt: send.now.toISOString(), clientReference: body.clientReference ?? null },
            replayed: false,
          },
        };
      });
    });
    return outcomes;
  }

  /** Whom each send is to: an appUserId as given, an email address through messaging's recipients (a round trip only when some send has one). */
  private async address(tx: PipelinedTransaction, sends: (PendingSend & { at: number })[]): Promise<Addressed[]> {
    const emails = [...new Set(sends.flatMap((send) => (typeof send.request.body.to.email === 'string' ? [send.request.body.to.email.toLowerCase()] : [])))];
    const byEmail = new Map<string, string>();
    if (emails.length > 0) {
      const [users] = await tx.query([
        { sql: `select user_id, email from messaging.recipients where email in ${jsonTexts(emails.length)}`, params: [JSON.stringify(emails)] },
      ]);
      for (const user of users) byEmail.set(user.email, user.user_id);
    }
    return sends.map((send) => {
      const to = send.request.body.to;
      if (typeof to.email !== 'string') return { send, userId: null, appUserId: to.appUserId! };
      const userId = byEmail.get(to.email.toLowerCase()) ?? null;
      return { send, userId, appUserId: userId ? appUserIdFor(this.config.appUserIdSecret, send.request.appId, userId) : '' };
    });
  }

  /**
   * D7 under a per-(app, user) lock, taken in key order, so concurrent business-initiated sends
   * cannot pass the cap together. Returns each send's count of the last 24 hours by its position.
   */
  /** When each send's app last sent business-initiated messages to its user (the 24 h before the send), under the user's lock. */
  private async businessInitiatedSends(tx: PipelinedTransaction, sends: ClaimedSend[]): Promise<Map<number, Date[]>> {
    const sentAt = new Map<number, Date[]>();
    if (sends.length === 0) return sentAt;
    const locks = [...new Set(sends.map((send) => `bi:${userKey(send)}`))].sort(compare);
    const [, rows] = await tx.query([
      { sql: `select pg_advisory_xact_lock(hashtextextended(k, 0)) from jsonb_array_elements_text(?::jsonb) with ordinality as l(k, n) order by n`, params: [JSON.stringify(locks)] },
      {
        sql: `select q.at, (select coalesce(jsonb_agg((extract(epoch from m.created_at) * 1000)::bigint), '[]'::jsonb) from messaging.messages m
                      where m.app_id = q.app_id and m.app_user_id = q.app_user_id and m.business_initiated and m.created_at > q.since) as sent_at
         from ${jsonRows('q', 'at int, app_id text, app_user_id text, since timestamptz', sends.length)}`,
        params: [JSON.stringify(sends.map((send) => ({ at: send.at, app_id: send.request.appId, app_user_id: send.appUserId, since: new Date(send.now.getTime() - REPLY_WINDOW_MS) })))],
      },
    ]);
    for (const row of rows) sentAt.set(row.at, (row.sent_at as number[]).map((ms) => new Date(ms)));
    return sentAt;
  }
}

interface Addressed {
  send: PendingSend & { at: number };
  userId: string | null;
  appUserId: string;
}

/** The send that holds a key, with its message (null if missing), for a twin that arrives later. */
interface HeldRow {
  app_id: string;
  idempotency_key: string;
  body_hash: string;
  message_id: string;
  app_user_id: string | null;
  type: ChatMessageType;
  created_at: DbTimestamp;
  client_reference: string | null;
}

/**
 * Claims (app, key) for each send, in key order so that two batches never wait on each other in a
 * circle (a concurrent twin elsewhere waits here for the first to commit). A claim older than the
 * records' 24 hours is taken over.
 */
function claimStatement(sends: PendingSend[]): Statement {
  const claims = sends
    .map(({ request, messageId, now }) => ({ app_id: request.appId, idempotency_key: request.idempotencyKey, body_hash: request.bodyHash, message_id: messageId, created_at: now }))
    .sort((a, b) => compare(a.app_id, b.app_id) || compare(a.idempotency_key, b.idempotency_key));
  return {
    sql: `insert into messaging.send_requests (app_id, idempotency_key, body_hash, message_id, created_at)
       select app_id, idempotency_key, body_hash, message_id, created_at
         from jsonb_to_recordset(?::jsonb) as c(app_id text, idempotency_key text, body_hash text, message_id text, created_at timestamptz)
       on conflict (app_id, idempotency_key) do update set body_hash = excluded.body_hash, message_id = excluded.message_id, created_at = excluded.created_at
         where messaging.send_requests.created_at < excluded.created_at - ?::int * interval '1 millisecond'
       returning 1`,
    params: [JSON.stringify(claims), IDEMPOTENCY_KEY_TTL_MS],
  };
}

/** A HeldRow's columns, from a claim `s` and its message (`HOLDER_MESSAGE`). */
const HELD_COLUMNS = 's.app_id, s.idempotency_key, s.body_hash, s.message_id, m.app_user_id, m.type, m.created_at, m.client_reference';
const HOLDER_MESSAGE = 'left join messaging.messages m on m.message_id = s.message_id and m.app_id = s.app_id';

/** After the claims: the keys another send holds, with that send's body hash and message (for the replay or the 422). */
function heldStatement(sends: PendingSend[]): Statement {
  return {
    sql: `select ${HELD_COLUMNS}
       from ${jsonRows('c', 'app_id text, idempotency_key text, message_id text', sends.length)}
       join messaging.send_requests s using (app_id, idempotency_key)
       ${HOLDER_MESSAGE}
      where s.message_id <> c.message_id`,
    params: [JSON.stringify(sends.map((send) => ({ app_id: send.request.appId, idempotency_key: send.request.idempotencyKey, message_id: send.messageId })))],
  };
}

/** A running twin's answer (DESIGN section 3): the same body is in progress, another body reuses the key. */
function twinRefusal(runningBodyHash: string, bodyHash: string): DomainError {
  return new DomainError(runningBodyHash === bodyHash ? 'idempotency_in_progress' : 'idempotency_key_reused');
}

/** A send whose key another send holds: the same body replays that send's acceptance, another body is 422. */
function replayOutcome(request: Pick<SendMessageCall, 'bodyHash'>, held: HeldRow): GroupOutcome<SendMessageOutcome> {
  if (held.body_hash !== request.bodyHash) return { ok: false, error: new DomainError('idempotency_key_reused') };
  if (held.app_user_id === null) return { ok: false, error: new DomainError('internal_error', 'The message holding this Idempotency-Key is missing.') };
  return {
    ok: true,
    value: {
      acceptance: { id: held.message_id, status: 'accepted', appUserId: held.app_user_id, type: held.type, createdAt: isoTime(held.created_at), clientReference: held.client_reference },
      replayed: true,
    },
  };
}

/** Everything D9 looks at, for every send, in one query over messaging's projections. */
function factsStatement(addressed: Addressed[]): Statement {
  return {
    sql: `select q.i, a.org_id as app_org_id, a.status as app_status, a.daily_quota,
              r.user_id, r.org_id as user_org_id, r.status as user_status, o.allows_external_businesses as org_allows,
              exists (select 1 from messaging.testers t where t.app_id = a.app_id and t.user_id = r.user_id) as tester,
              (select c.status from messaging.consents c where c.app_id = a.app_id and c.app_user_id = q.app_user_id) as consent,
              (select w.last_user_message_at from messaging.windows w where w.app_id = a.app_id and w.app_user_id = q.app_user_id) as last_user_message_at
       from ${jsonRows('q', 'i int, app_id text, app_user_id text, user_id text', addressed.length)}
       join messaging.apps a on a.app_id = q.app_id
       left join messaging.recipients r on r.user_id = coalesce(q.user_id, (select u.user_id from messaging.app_users u where u.app_id = a.app_id and u.app_user_id = q.app_user_id))
       left join messaging.orgs o on o.org_id = r.org_id`,
    params: [JSON.stringify(addressed.map(({ send, userId, appUserId }) => ({ i: send.at, app_id: send.request.appId, app_user_id: appUserId, user_id: userId })))],
  };
}

/** The claimed sends with their facts; a send whose app messaging does not know yet has no row and is left out. */
function withFacts(claimed: (PendingSend & { at: number })[], addressed: Addressed[], rows: FactsRow[], media: Map<number, MediaFile>): ClaimedSend[] {
  const byAt = new Map(rows.map((row) => [row.i, row]));
  return claimed.flatMap((send) => {
    const row = byAt.get(send.at);
    if (!row) return [];
    const { appUserId } = addressed[send.at];
    const file = send.request.body.type === 'text' ? null : (media.get(send.at) ?? { facts: { found: false }, listed: [], handedOver: [] });
    const facts: SendFacts = {
      keyEnvironment: send.request.keyEnvironment,
      app: { appId: send.request.appId, orgId: row.app_org_id, status: row.app_status, dailyQuota: row.daily_quota },
      addressedBy: typeof send.request.body.to.email === 'string' ? 'email' : 'appUserId',
      recipient:
        row.user_id === null
          ? null
          : { userId: row.user_id, appUserId, orgId: row.user_org_id!, status: row.user_status!, orgAllowsExternalBusinesses: row.org_allows ?? false },
      isAcceptedTester: row.tester,
      consent: row.consent,
      media: file ? file.facts : null,
      lastUserMessageAt: row.last_user_message_at === null ? null : new Date(row.last_user_message_at),
      // Loaded later, under the locks, for the sends that get that far (decideSend).
      businessInitiatedSentAt: [],
      dailyUsage: { day: utcDay(send.now), accepted: 0 },
    };
    return [{ ...send, appUserId, facts, file }];
  });
}

function mediaWanted(sends: (PendingSend & { at: number })[]): { at: number; media_id: string; app_id: string }[] {
  return sends.filter((send) => send.request.body.type !== 'text').map((send) => ({ at: send.at, media_id: String(send.request.body.mediaId), app_id: send.request.appId }));
}

/** The media of the media messages, from messaging's projection of media.events (D9 media checks, D11). */
function mediaStatement(wanted: { at: number; media_id: string; app_id: string }[]): Statement {
  return {
    sql: `select q.at, m.media_id, m.kind, m.status, m.mime_type, m.file_name, m.size, m.object_key
           from ${jsonRows('q', 'at int, media_id text, app_id text', wanted.length)} join messaging.media m using (media_id, app_id)`,
    params: [JSON.stringify(wanted)],
  };
}

/** The media rows by position in the batch. */
function mediaFiles(rows: Row[]): Map<number, MediaFile> {
  const files = new Map<number, MediaFile>();
  for (const row of rows as { at: number; media_id: string; kind: MediaKind; status: 'pending_upload' | 'ready' | 'invalid'; mime_type: string; file_name: string; size: string; object_key: string }[]) {
    const size = Number(row.size);
    files.set(row.at, {
      facts: { found: true, kind: row.kind, status: row.status, mimeType: row.mime_type, fileName: row.file_name, size },
      listed: [{ id: row.media_id, mimeType: row.mime_type, fileName: row.file_name, size }],
      handedOver: [{ mediaId: row.media_id, objectKey: row.object_key, fileName: row.file_name, mimeType: row.mime_type, size }],
    });
  }
  return files;
}

/** The (app, day) counters the sends count against (D8), in key order. */
function dayCounters(sends: PendingSend[]): { app_id: string; day: string }[] {
  return [...new Map(sends.map((send) => [rowKey(send.request.appId, utcDay(send.now)), { app_id: send.request.appId, day: utcDay(send.now) }])).values()].sort(
    (a, b) => compare(a.app_id, b.app_id) || compare(a.day, b.day),
  );
}

/**
 * D8: locks each counter, in key order, and reads it. The lock is held to commit, so concurrent
 * batches of one app decide one after the other. A counter row made here for a day with no
 * accepted send is removed again at the end (settleStatements).
 */
function countersStatement(counters: { app_id: string; day: string }[]): Statement {
  return {
    sql: `insert into messaging.daily_counts (app_id, day, accepted)
       select app_id, day, 0 from jsonb_to_recordset(?::jsonb) as c(app_id text, day date)
       on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted
       returning app_id, to_char(day, 'YYYY-MM-DD') as day, accepted`,
    params: [JSON.stringify(counters)],
  };
}

/** Adds the accepted sends to their counters, and removes counter rows this batch made for nothing. */
function settleStatements(counters: { app_id: string; day: string }[], accepted: ClaimedSend[]): Statement[] {
  const added = new Map<string, number>();
  for (const send of accepted) added.set(dayKey(send), (added.get(dayKey(send)) ?? 0) + 1);
  return [
    {
      sql: `with counts as (select * from ${jsonRows('c', 'app_id text, day date, n int', counters.length)}),
            added as (update messaging.daily_counts d set accepted = d.accepted + c.n from counts c where c.n > 0 and d.app_id = c.app_id and d.day = c.day returning 1)
       delete from messaging.daily_counts d using counts c where c.n = 0 and d.accepted = 0 and d.app_id = c.app_id and d.day = c.day`,
      params: [JSON.stringify(counters.map(({ app_id, day }) => ({ app_id, day, n: added.get(rowKey(app_id, day)) ?? 0 })))],
    },
  ];
}

/** A refused send leaves no trace: its key is free for a corrected retry. */
function releaseStatements(refused: PendingSend[]): Statement[] {
  if (refused.length === 0) return [];
  return [
    {
      sql: `delete from messaging.send_requests s using ${jsonRows('r', 'app_id text, idempotency_key text, message_id text', refused.length)}
        where s.app_id = r.app_id and s.idempotency_key = r.idempotency_key and s.message_id = r.message_id`,
      params: [JSON.stringify(refused.map((send) => ({ app_id: send.request.appId, idempotency_key: send.request.idempotencyKey, message_id: send.messageId })))],
    },
  ];
}

function command(send: ClaimedSend): Extract<MessageCommand, { type: 'SendMessage' }> {
  const body = send.request.body;
  return {
    type: 'SendMessage',
    data: { messageId: send.messageId, type: body.type, text: body.text ?? null, media: send.file?.listed ?? [], clientReference: body.clientReference ?? null, facts: send.facts },
    metadata: { now: send.now },
  };
}

/** The decider's answer to the send given the D7 and D8 facts: its events, or the DomainError refusing it. */
function decideSend(send: ClaimedSend, acceptedToday: number, businessInitiatedSentAt: Date[]): MessageEvent[] | DomainError {
  send.facts.dailyUsage = { day: utcDay(send.now), accepted: acceptedToday };
  send.facts.businessInitiatedSentAt = businessInitiatedSentAt;
  try {
    return messageDecider.decide(command(send), messageDecider.initialState());
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

function isBusinessInitiated(events: MessageEvent[]): boolean {
  return events.some((event) => event.type === 'MessageAccepted' && event.data.businessInitiated);
}

function missingApp(): DomainError {
  return new DomainError('internal_error', 'The app has not reached the messaging service yet; retry with the same Idempotency-Key.');
}

/** DESIGN D3: the handoff to the chat product goes out through the outbox, in the same transaction. */
function handover(events: DomainEvent[], appId: string, media: OutboundMediaFile[]): DomainEvent {
  const accepted = events.find((e) => e.type === 'MessageAccepted')!;
  const sent = events.find((e) => e.type === 'MessageSent')!;
  const d = accepted.data as { messageId: string; appUserId: string; userId: string; type: ChatMessageType; text: string | null };
  const handedOver: DomainEvent<'MessageHandedOver', MessageHandedOver['data']> = {
    ...sent,
    eventId: derivedUuidv7(new Date(sent.occurredAt).getTime(), `${sent.eventId}:handover`),
    type: 'MessageHandedOver',
    causationId: sent.eventId,
    data: { messageId: d.messageId, appId, userId: d.userId, appUserId: d.appUserId, type: d.type, text: d.text, media },
  };
  return handedOver;
}

/** A two-column primary key (app and key, or app and day) as one map key. */
function rowKey(appId: string, second: string): string {
  return `${appId}\u0000${second}`;
}

function claimKey(request: Pick<SendMessageCall, 'appId' | 'idempotencyKey'>): string {
  return rowKey(request.appId, request.idempotencyKey);
}

function dayKey(send: ClaimedSend): string {
  return rowKey(send.request.appId, utcDay(send.now));
}

function userKey(send: ClaimedSend): string {
  return `${send.request.appId}:${send.appUserId}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

