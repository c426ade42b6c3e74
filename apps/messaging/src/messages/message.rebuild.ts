import type { ProjectionRebuildSpec, RebuildEvent, RebuildQuery, RebuildSession } from '#platform/event-store';
import type { AcceptanceData, MessageReceived } from '#platform/contracts';
import { addCounts, dayCounts, type DayCounts } from '../message-counts/message-counts.rule';
import { TEMPLATE_EVENT_TYPES } from '../templates/template.projection';
import { TemplateRebuildSession } from '../templates/template.rebuild';
import { opensOutbound } from './message.state';

/**
 * Messaging's projections that its own event store fully determines: `messages` (the inline projection
 * of message streams, message.projection.ts), `message_daily_counts` (messages per day by status) and `daily_counts` (D8: one per accepted send, per app
 * and UTC day, counted at the event that opens the message: its MessageSent, or in streams written
 * before one event per send its MessageAccepted; D3). The fold below must stay equivalent to
 * projectMessageEvents and countAgainstQuota; the replay-projections test compares a rebuild with the
 * live tables row by row.
 */
export interface MessageRow {
  message_id: string;
  app_id: string;
  direction: string;
  app_user_id: string;
  user_id: string;
  type: string;
  text: string | null;
  /** jsonb as text. */
  media: string;
  status: string;
  client_reference: string | null;
  business_initiated: boolean;
  failure_reason: string | null;
  created_at: string;
  delivered_at: string | null;
  read_at: string | null;
  failed_at: string | null;
  version: number;
  /** jsonb as text: a template message's template, else null. */
  template: string | null;
  /** The Idempotency-Key an outbound message was accepted under, and its body's hash (null in inbound messages and older events). */
  idempotency_key: string | null;
  body_hash: string | null;
}

const COLUMNS: [keyof MessageRow, string][] = [
  ['message_id', 'text'],
  ['app_id', 'text'],
  ['direction', 'text'],
  ['app_user_id', 'text'],
  ['user_id', 'text'],
  ['type', 'text'],
  ['text', 'text'],
  ['media', 'jsonb'],
  ['status', 'text'],
  ['client_reference', 'text'],
  ['business_initiated', 'boolean'],
  ['failure_reason', 'text'],
  ['created_at', 'timestamptz'],
  ['delivered_at', 'timestamptz'],
  ['read_at', 'timestamptz'],
  ['failed_at', 'timestamptz'],
  ['version', 'integer'],
  ['template', 'jsonb'],
  ['idempotency_key', 'text'],
  ['body_hash', 'text'],
];

export const MESSAGE_EVENT_TYPES = ['MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageRead', 'MessageFailed', 'MessageReceived'];

type D = Record<string, unknown>;

/** The row a message's first event creates; the fields that differ between directions come from the caller. */
function newRow(
  e: RebuildEvent,
  d: Pick<AcceptanceData, 'messageId' | 'appUserId' | 'userId' | 'text'> & { type: string },
  own: Pick<MessageRow, 'direction' | 'media' | 'status' | 'client_reference' | 'business_initiated'> &
    Partial<Pick<MessageRow, 'template' | 'idempotency_key' | 'body_hash'>>,
): MessageRow {
  return {
    message_id: d.messageId,
    app_id: e.appId as string,
    app_user_id: d.appUserId,
    user_id: d.userId,
    type: d.type,
    text: d.text ?? null,
    template: null,
    idempotency_key: null,
    body_hash: null,
    ...own,
    failure_reason: null,
    created_at: e.occurredAt,
    delivered_at: null,
    read_at: null,
    failed_at: null,
    version: e.streamVersion,
  };
}

/** One event on the row of its message, as projectMessageEvents' statements would change it. */
export function applyMessageEvent(row: MessageRow | undefined, e: RebuildEvent): MessageRow | undefined {
  const d = e.data as D;
  const at = e.occurredAt;
  const v = e.streamVersion;
  const acceptance = opensOutbound(e);
  if (acceptance) {
    // D3: a MessageSent opens its message sent, a MessageAccepted (streams written before) accepted until its MessageSent.
    return newRow(e, acceptance, {
      direction: 'outbound',
      media: JSON.stringify(acceptance.media),
      status: e.type === 'MessageSent' ? 'sent' : 'accepted',
      client_reference: acceptance.clientReference,
      business_initiated: acceptance.businessInitiated,
      template: acceptance.template ? JSON.stringify(acceptance.template) : null,
      idempotency_key: acceptance.idempotency?.key ?? null,
      body_hash: acceptance.idempotency?.bodyHash ?? null,
    });
  }
  switch (e.type) {
    case 'MessageReceived':
      return newRow(e, e.data as MessageReceived['data'], {
        direction: 'inbound',
        media: JSON.stringify((d.media as D[]).map(({ objectKey: _key, ...file }) => file)),
        status: 'received',
        client_reference: null,
        business_initiated: false,
      });
    case 'MessageSent':
      return row && { ...row, status: 'sent', version: v };
    case 'MessageDelivered':
      return row && { ...row, status: 'delivered', delivered_at: at, version: v };
    case 'MessageRead':
      return row && { ...row, status: 'read', read_at: at, delivered_at: row.delivered_at ?? at, version: v };
    case 'MessageFailed':
      return row && { ...row, status: 'failed', failure_reason: d.reason as string, failed_at: at, version: v };
    default:
      return row;
  }
}

const messageIdOf = (e: RebuildEvent) => (e.data as D).messageId as string;

/** Rows kept in memory between pages: a message's later events (sent, delivered, read) usually come soon after its creation. */
const CACHED_ROWS = 200_000;
const CHUNK = 10_000;

/**
 * Folds pages of events into `<target>.messages` and `<target>.daily_counts`. Touched rows stay in memory
 * (up to CACHED_ROWS) and are written once on flush, so the bulk of a rebuild is plain inserts.
 */
export class MessagingRebuildSession implements RebuildSession {
  private readonly rows = new Map<string, MessageRow>();
  private readonly counts = new Map<string, number>();
  /** Messages per day by status, by app and day, summed over the pages until the flush. */
  private readonly byDay = new Map<string, DayCounts>();

  async applyPage(query: RebuildQuery, target: string, events: RebuildEvent[]): Promise<void> {
    const created = new Set(events.filter((e) => e.type === 'MessageReceived' || opensOutbound(e)).map(messageIdOf));
    const missing = [...new Set(events.map(messageIdOf).filter((id) => !created.has(id) && !this.rows.has(id)))];
    if (missing.length > 0) {
      const existing = await query<MessageRow>(
        `select ${COLUMNS.map(([c, t]) => (t === 'jsonb' || t === 'timestamptz' ? `${c}::text as ${c}` : c)).join(', ')} from ${target}.messages where message_id = any($1)`,
        [missing],
      );
      for (const row of existing) this.rows.set(row.message_id, row);
    }
    for (const e of events) {
      const id = messageIdOf(e);
      const next = applyMessageEvent(this.rows.get(id), e);
      if (next) this.rows.set(id, next);
      // D8 counts each send once, by the event that opens it.
      if (opensOutbound(e)) {
        const key = `${e.appId}\u0000${e.utcDay}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      }
    }
    for (const row of dayCounts(events.map((e) => ({ type: e.type, appId: e.appId, day: e.utcDay })))) {
      const key = `${row.appId}\u0000${row.day}`;
      const sum = this.byDay.get(key);
      this.byDay.set(key, sum ? addCounts(sum, row) : row);
    }
    if (this.rows.size > CACHED_ROWS) await this.flush(query, target);
  }

  async flush(query: RebuildQuery, target: string): Promise<void> {
    const all = [...this.rows.values()];
    for (let i = 0; i < all.length; i += CHUNK) {
      const chunk = all.slice(i, i + CHUNK);
      await query(
        `insert into ${target}.messages (${COLUMNS.map(([c]) => c).join(', ')})
         select ${COLUMNS.map(([c, t]) => (t === 'jsonb' || t === 'timestamptz' ? `${c}::${t}` : c)).join(', ')}
         from unnest(${COLUMNS.map(([, t], n) => `$${n + 1}::${t === 'jsonb' || t === 'timestamptz' ? 'text' : t}[]`).join(', ')}) as t(${COLUMNS.map(([c]) => c).join(', ')})
         on conflict (message_id) do update set ${COLUMNS.slice(1)
           .map(([c]) => `${c} = excluded.${c}`)
           .join(', ')}`,
        COLUMNS.map(([c]) => chunk.map((row) => row[c])),
      );
    }
    this.rows.clear();
    if (this.counts.size > 0) {
      const keys = [...this.counts.keys()].map((k) => k.split('\u0000'));
      await query(
        `insert into ${target}.daily_counts (app_id, day, accepted) select * from unnest($1::text[], $2::date[], $3::int[])
         on conflict (app_id, day) do update set accepted = ${target}.daily_counts.accepted + excluded.accepted`,
        [keys.map((k) => k[0]), keys.map((k) => k[1]), [...this.counts.values()]],
      );
      this.counts.clear();
    }
    // Messages per day by status, summed over what the pages held (one row per app and day).
    const byDay = [...this.byDay.values()];
    this.byDay.clear();
    for (let i = 0; i < byDay.length; i += CHUNK) {
      const chunk = byDay.slice(i, i + CHUNK);
      await query(
        `insert into ${target}.message_daily_counts as c (app_id, day, sent, delivered, read, failed)
         select * from unnest($1::text[], $2::date[], $3::int[], $4::int[], $5::int[], $6::int[])
         on conflict (app_id, day) do update set sent = c.sent + excluded.sent, delivered = c.delivered + excluded.delivered,
           read = c.read + excluded.read, failed = c.failed + excluded.failed`,
        [
          chunk.map((r) => r.appId),
          chunk.map((r) => r.day),
          chunk.map((r) => r.sent),
          chunk.map((r) => r.delivered),
          chunk.map((r) => r.read),
          chunk.map((r) => r.failed),
        ],
      );
    }
  }
}

/** Messages and templates, from one pass over the event store: each event goes to its aggregate's session. */
class MessagingStoreRebuildSession implements RebuildSession {
  private readonly messages = new MessagingRebuildSession();
  private readonly templates = new TemplateRebuildSession();

  async applyPage(query: RebuildQuery, target: string, events: RebuildEvent[]): Promise<void> {
    const isTemplate = (e: RebuildEvent) => TEMPLATE_EVENT_TYPES.includes(e.type);
    await this.messages.applyPage(
      query,
      target,
      events.filter((e) => !isTemplate(e)),
    );
    await this.templates.applyPage(query, target, events.filter(isTemplate));
  }

  async flush(query: RebuildQuery, target: string): Promise<void> {
    await this.messages.flush(query, target);
    await this.templates.flush(query, target);
  }
}

export const messagingProjectionRebuild: ProjectionRebuildSpec = {
  service: 'messaging',
  schema: 'messaging',
  // The swap locks in the order sends touch them: a send batch reads templates with its facts, then
  // locks its daily_counts rows (D8), then writes messages (inline projection); locking messages
  // first deadlocked the swap with sends.
  tables: ['templates', 'daily_counts', 'messages', 'message_daily_counts'],
  eventTypes: [...MESSAGE_EVENT_TYPES, ...TEMPLATE_EVENT_TYPES],
  start: () => new MessagingStoreRebuildSession(),
};
