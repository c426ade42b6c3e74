import { CliError, EXIT, out, table } from '../lib/cli.mjs';
import { withDatabase } from '../lib/clients.mjs';

/**
 * Schemas whose events name a message without being its stream, and the data fields that do (each
 * with its own partial index, so a trace costs the same on a year of events as on a day's; ADR 0193):
 * the chat product's events (`messageId`, and `replyTo` on a user's reply), media's files a user sent.
 * Consent's events never name a message.
 */
/** @type {[service: string, schema: string, fields: string[]][]} */
const MENTIONING_SCHEMAS = [
  ['chat-sim', 'chat_sim', ['messageId', 'replyTo']],
  ['media', 'media', ['messageId']],
];

/**
 * Everything the platform recorded about one message, in time order: messaging's stream
 * `message-<id>`, other services' events whose data names the id, the dispatcher's public events
 * made from those events, their deliveries and attempts. Read-only, over the admin connection
 * (DATABASE_URL); every lookup goes through an index.
 */
export default {
  name: ['trace', 'message'],
  summary: 'Show every event, webhook delivery and attempt for one message across services, in time order.',
  positionals: [{ name: 'messageId', description: 'message id (msg_…), outbound or inbound' }],
  options: {
    json: { type: 'boolean', description: 'print the rows as JSON (an array, time order)' },
  },
  examples: ['platformctl trace message msg_01JD…', 'platformctl trace message msg_01JD… --json | jq .'],
  async run({ args, values, config }) {
    const id = args.messageId;
    const rows = await withDatabase(config, async (db) => {
      const rows = [];
      const domainEventIds = [];
      const own = await db.query(`select event_id, type, data, occurred_at from messaging.events where stream_id = $1 order by stream_version`, [
        `message-${id}`,
      ]);
      for (const e of own.rows) {
        domainEventIds.push(e.event_id);
        rows.push({ time: e.occurred_at, service: 'messaging', kind: 'event', type: e.type, id: e.event_id, detail: eventDetail(e.data) });
      }
      for (const [service, schema, fields] of MENTIONING_SCHEMAS) {
        const mentions = fields.map((field) => `data->>'${field}' = $1`).join(' or ');
        const found = await db.query(`select event_id, type, data, occurred_at from "${schema}".events where ${mentions} order by position`, [id]);
        for (const e of found.rows) {
          domainEventIds.push(e.event_id);
          rows.push({ time: e.occurred_at, service, kind: 'event', type: e.type, id: e.event_id, detail: eventDetail(e.data) });
        }
      }
      const publicEvents = await db.query(
        `select event_id, type, source_event_id, created_at, payload is null as expired from webhook_dispatcher.public_events
         where source_event_id = any($1::text[]) order by event_id`,
        [domainEventIds],
      );
      for (const p of publicEvents.rows) {
        rows.push({
          time: p.created_at,
          service: 'webhook-dispatcher',
          kind: 'public-event',
          type: p.type,
          id: p.event_id,
          detail: `from ${p.source_event_id ?? '?'}${p.expired ? ', payload expired' : ''}`,
        });
      }
      const deliveries = await db.query(
        `select delivery_id, endpoint_id, event_id, event_type, status, attempts, created_at, replay_of, last_response_status from webhook_dispatcher.deliveries where event_id = any($1::text[]) order by delivery_id`,
        [publicEvents.rows.map((p) => p.event_id)],
      );
      for (const d of deliveries.rows) {
        rows.push({
          time: d.created_at,
          service: 'webhook-dispatcher',
          kind: 'delivery',
          type: d.event_type,
          id: d.delivery_id,
          detail: `${d.event_id} → ${d.endpoint_id}: ${d.status}, ${d.attempts} attempt(s)${d.replay_of ? `, replay of ${d.replay_of}` : ''}`,
        });
      }
      const attempts = await db.query(
        `select delivery_id, attempt, started_at, outcome, response_status, error, duration_ms from webhook_dispatcher.delivery_attempts where delivery_id = any($1::text[]) order by started_at`,
        [deliveries.rows.map((d) => d.delivery_id)],
      );
      for (const a of attempts.rows) {
        rows.push({
          time: a.started_at,
          service: 'webhook-dispatcher',
          kind: 'attempt',
          type: a.outcome,
          id: `${a.delivery_id}#${a.attempt}`,
          detail: `${a.response_status ?? '-'} in ${a.duration_ms} ms${a.error ? `: ${a.error}` : ''}`,
        });
      }
      return rows;
    });
    if (rows.length === 0) throw new CliError(`nothing recorded for ${id}`);
    // Time order; within one instant, causes before effects (event → public event → delivery → attempt).
    const rank = { event: 0, 'public-event': 1, delivery: 2, attempt: 3 };
    // `time` is a Date from pg: getTime() keeps its milliseconds (Date.parse would go through a string without them).
    rows.sort((a, b) => new Date(a.time).getTime() - new Date(b.time).getTime() || rank[a.kind] - rank[b.kind]);
    if (values.json)
      out(
        JSON.stringify(
          rows.map((r) => ({ ...r, time: new Date(r.time).toISOString() })),
          null,
          2,
        ),
      );
    else {
      out(`message ${id}`);
      out(
        table(
          ['time', 'service', 'kind', 'type', 'id', 'detail'],
          rows.map((r) => [new Date(r.time).toISOString(), r.service, r.kind, r.type, r.id, r.detail]),
        ),
      );
    }
    return EXIT.ok;
  },
};

/** A short summary of an event's data: its status/reason and the ids that matter. */
function eventDetail(data) {
  if (!data || typeof data !== 'object') return '';
  const keys = ['status', 'reason', 'appUserId', 'userId', 'type'];
  return keys
    .filter((k) => data[k] !== undefined && data[k] !== null)
    .map((k) => `${k}=${data[k]}`)
    .join(' ');
}
