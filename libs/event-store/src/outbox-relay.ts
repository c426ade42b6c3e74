// Over 300 lines because tailing the event table is one locked batch whose statements (shard leases,
// the horizon read, the predecessors of late streams, the queue, the cursor move) only make sense together.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { DomainEvent } from '#platform/contracts';
import type { Producer } from 'kafkajs';
import { Pool, type PoolClient } from 'pg';
import { handlePoolErrors, PgListener, queryPrepared, quoteText, type Row } from '#platform/postgres';
import { publishedEvent, publishedHeaders, routesOf, storedEvent, type EventRow, type OutboxRoutes } from './event-store';
import { outboxChannel, quoteIdent, RELAY_SHARDS } from './schema.sql';

export interface OutboxRelayOptions {
  schema: string;
  /** Connection string of the service's own role. */
  databaseUrl: string;
  producer: Producer;
  /** The service's route (the EventStore's): where each stored event goes. */
  route: (event: DomainEvent) => OutboxRoutes;
  batchSize?: number;
  /** How long to wait after a notification before publishing, so bursts go out as one batch (default 5 ms). */
  lingerMs?: number;
  /** Fallback poll, so events committed by a crashed process or without a notification still go out. */
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
  onPublished?: (count: number) => void;
  /**
   * When spans are exported: each event's publish is a PRODUCER span, child of the unit of work that
   * wrote the event, and the message carries that span's traceparent, so consumers hang below it.
   */
  tracer?: Tracer | null;
}

/** An event row as the relay reads it. */
interface TailRow extends EventRow {
  stream_id: string;
  tx_id: string;
  position: string;
  shard: number;
  /** A predecessor of a batch event, read because its transaction began after its successor's. */
  early: boolean;
}

/** A row of the republish queue (the `outbox` table). */
interface QueueRow {
  id: string;
  aggregate_id: string;
  topic: string;
  payload: unknown;
  headers: Record<string, string>;
}

interface Message {
  topic: string;
  key: string;
  value: string;
  headers: Record<string, string>;
}

/**
 * Publishes the service's events to Kafka from its event table (architecture section 2;
 * docs/adr/0213-the-event-table-is-the-outbox.md). Every replica of a service runs one; they share the
 * work by shard (docs/adr/0192-outbox-relays-share-the-outbox-by-shard.md). Each batch takes, under
 * transaction-scoped advisory locks, every shard with events to publish that no other relay holds,
 * reads those shards' next events past their cursors, publishes them as one batch and moves the
 * cursors in the same transaction: a relay that dies mid-batch rolls back and the events go out again
 * (at-least-once; consumers' inboxes make that harmless).
 *
 * The horizon: an event is read only once every transaction that began before its own has ended
 * (`tx_id < pg_snapshot_xmin(pg_current_snapshot())`), in (tx_id, position) order, so one that commits
 * late with a lower position is never passed over. A stream's events keep their order: when a batch's
 * first event of a stream has an unpublished predecessor (its transaction began after the batch
 * event's, yet committed first), the predecessor goes out before it, and again in its own turn.
 *
 * Rows of the republish queue (redrives, and outbox rows left by the previous release) go out first:
 * while another relay holds them, this one does not tail, so a key's queued rows precede its new events.
 */
export class OutboxRelay {
  private readonly pool: Pool;
  private readonly listener: PgListener;
  private running = false;
  private endWait: (() => void) | null = null;
  private pending = false;
  private loop: Promise<void> | null = null;
  private readonly lockKey: string;
  private readonly events: string;
  private readonly cursor: string;
  private readonly queue: string;
  /**
   * The last read left shards with events to another relay holding them. That relay may have read
   * before this process's events committed, and events committed without a NOTIFY (`wake`) never woke
   * it: this relay tries again soon (backing off up to the poll interval) instead of at the next poll.
   * Also set while the horizon holds events back (a transaction still open), to look again soon.
   */
  private lockWasBusy = false;
  private busyRetries = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    // A relay whose host vanishes must not hold its locks for hours.
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 2,
      application_name: `${options.schema}-outbox-relay`,
      // JIT compiling the tail's plan costs far more than running it.
      options: '-c idle_in_transaction_session_timeout=60s -c jit=off',
    });
    handlePoolErrors(this.pool, (error) => options.onError?.(error));
    this.lockKey = `${options.schema}.outbox-relay`;
    const s = quoteIdent(options.schema);
    this.events = `${s}.events`;
    this.cursor = `${s}.relay_cursor`;
    this.queue = `${s}.outbox`;
    this.listener = new PgListener({
      databaseUrl: options.databaseUrl,
      channel: outboxChannel(options.schema),
      applicationName: `${options.schema}-outbox-listen`,
      onNotify: () => this.wake(),
      onError: options.onError,
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listener.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await this.listener.stop();
    await this.pool.end().catch(() => undefined);
  }

  /** Events (and queued rows) not yet published, and the age of the oldest, for /metrics and readiness. */
  async backlog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const { rows } = await this.pool.query(
      `select coalesce(sum(n), 0)::int as count, coalesce(extract(epoch from now() - min(oldest)), 0)::float as age from (
         select w.n, w.oldest
           from ${this.cursor} c cross join generate_series(0, ${RELAY_SHARDS - 1}) s(shard)
           cross join lateral (select count(*) as n, min(e.recorded_at) as oldest from ${this.events} e
                                where e.shard = s.shard and (e.tx_id, e.position) > (c.tx_ids[s.shard + 1], c.positions[s.shard + 1])) w
         union all
         select count(*), min(created_at) from ${this.queue}) waiting`,
    );
    return { count: rows[0].count, oldestAgeSeconds: rows[0].age };
  }

  /** Publishes everything publishable now in the shards no other relay holds; returns how many events went out. */
  async drain(): Promise<number> {
    let total = 0;
    const batchSize = this.options.batchSize ?? 500;
    for (;;) {
      const { sent, full } = await this.publishBatch(batchSize);
      total += sent;
      // A short batch emptied its shards as of its read; events committed since have notified us, and
      // shards held by other relays are retried soon (`lockWasBusy`).
      if (!full) return total;
    }
  }

  /**
   * Events were committed: publish them (what a notification does). Also called in this process once
   * a transaction committed events without a NOTIFY (`appendStatements` with `committedBy`); a crash
   * between that commit and this call leaves them to the fallback poll, or to the relay of the next start.
   */
  wake(): void {
    this.pending = true;
    this.endWait?.();
  }

  private async run(): Promise<void> {
    const poll = this.options.pollIntervalMs ?? 1000;
    while (this.running) {
      try {
        await this.drain();
      } catch (error) {
        this.options.onError?.(error);
        await sleep(500);
      }
      if (!this.running) break;
      if (!this.pending) {
        const wait = this.lockWasBusy ? Math.min((this.options.lingerMs ?? 5) * 2 ** Math.min(this.busyRetries++, 10), poll) : poll;
        if (!this.lockWasBusy) this.busyRetries = 0;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.endWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.endWait = null;
      }
      // Woken by a commit: let the burst it belongs to gather into one batch (a few ms of latency, far fewer round trips).
      if (this.pending && this.running) await sleep(this.options.lingerMs ?? 5);
      this.pending = false;
    }
  }

  /**
   * One locked batch, in two round trips: `begin`, the leases and the reads; then the cursor move (or
   * the queue rows' delete) with `commit`.
   */
  private async publishBatch(batchSize: number): Promise<{ sent: number; full: boolean }> {
    const client: PoolClient = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const read = await this.readBatch(client, Math.trunc(batchSize));
      const lease = read.lease[0] as { mine: string; waiting: number; queue_mine: boolean; queue_waiting: boolean; held_back: boolean };
      const queued = read.queued as QueueRow[];
      const tail = read.tail as TailRow[];
      const taken = lease.mine === '' ? 0 : lease.mine.split(',').length;
      // Shards with events that another relay holds, or a queue it holds, or events behind the horizon.
      this.lockWasBusy = taken < lease.waiting || (lease.queue_waiting && !lease.queue_mine) || lease.held_back;
      if (queued.length === 0 && tail.length === 0) {
        await client.query('commit');
        return { sent: 0, full: false };
      }
      const messages: Message[] = [];
      const spans: Span[] = [];
      for (const row of queued)
        messages.push(this.traced({ topic: row.topic, key: row.aggregate_id, value: JSON.stringify(row.payload), headers: row.headers ?? {} }, spans));
      for (const row of inStreamOrder(tail)) {
        const event = storedEvent(row.stream_id, row);
        const written = (row.metadata?.trace as Record<string, string> | undefined) ?? undefined;
        for (const route of routesOf(this.options.route(event))) {
          const published = publishedEvent(event, route);
          messages.push(
            this.traced({ topic: route.topic, key: route.key, value: JSON.stringify(published), headers: publishedHeaders(published, written) }, spans),
          );
        }
      }
      try {
        await this.send(messages);
      } catch (error) {
        for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
        throw error;
      } finally {
        for (const span of spans) span.end();
      }
      await client.query(`${this.cursorMoveSql(tail)}${this.queueDeleteSql(queued)}commit`);
      const tailed = tail.filter((row) => !row.early).length;
      this.options.onPublished?.(queued.length + tailed);
      // Queued rows hold the tail back until they are gone: look again at once.
      return { sent: queued.length + tailed, full: queued.length > 0 || tailed >= batchSize };
    } catch (error) {
      broken = await client.query('rollback').then(
        () => undefined,
        (rollbackError: Error) => rollbackError,
      );
      throw error;
    } finally {
      // A connection that cannot even roll back is dropped, not handed out again.
      client.release(broken);
    }
  }

  /**
   * `begin`, the leases and the reads in one round trip. The three statements are prepared on their
   * connection the first time it runs them and executed by name after that (queryPrepared): their
   * text never changes for a relay (its values are literals), and planning the tail's read took
   * Postgres longer than running it, on every batch.
   */
  private async readBatch(client: PoolClient, limit: number): Promise<{ lease: Row[]; queued: Row[]; tail: Row[] }> {
    const reads = this.readStatements(limit).map((text) => ({ text, values: [] }));
    const [, lease, queued, tail] = await queryPrepared(client, ['begin', ...reads], (value) => quoteText(String(value)));
    return { lease, queued, tail };
  }

  /**
   * The leases, the queue's read and the tail's read, in that order.
   * Every lookup of the events is a lateral subquery with a limit or an aggregate, which the planner
   * cannot pull up into a join: each runs as an index scan from its shard's cursor (or its key), never
   * as a join that reads every published event.
   * The values are literals, so a relay's statements are the same text every batch. The leases
   * are taken in a statement of their own and named in a transaction-local setting, so the reads'
   * snapshot is taken once they are held: it sees the cursors the last holder committed.
   * Relays of the earlier design take the relay key exclusively for every batch; this one takes it
   * shared, so both never publish at once while replicas of the two versions run side by side.
   */
  private readStatements(limit: number): [lease: string, queue: string, tail: string] {
    const key = quoteText(this.lockKey);
    const horizon = `pg_snapshot_xmin(pg_current_snapshot())`;
    const after = (shard: string) => `(c.tx_ids[${shard} + 1], c.positions[${shard} + 1])`;
    const columns = `e.stream_id, e.stream_version, e.event_id, e.type, e.data, e.metadata, e.occurred_at, e.tx_id::text as tx_id, e.position::text as position, e.shard`;
    const lease = `select set_config('platform.relay_shards', coalesce(string_agg(shard::text, ',') filter (where locked and shard >= 0), ''), true) as mine,
             (count(*) filter (where shard >= 0 and ready))::int as waiting,
             coalesce(bool_or(locked) filter (where shard < 0), false) as queue_mine,
             coalesce(bool_or(shard < 0), false) as queue_waiting,
             coalesce(bool_or(shard >= 0 and not ready), false) as held_back
        from (select shard, ready,
                     case when not ready then false
                          when pg_try_advisory_xact_lock_shared(hashtext(${key}))
                          then pg_try_advisory_xact_lock(hashtext(${key} || '.tail'), shard) else false end as locked
                from (select s.shard, e.tx_id < ${horizon} as ready
                        from ${this.cursor} c cross join generate_series(0, ${RELAY_SHARDS - 1}) s(shard)
                        join lateral (select e.tx_id from ${this.events} e
                                       where e.shard = s.shard and (e.tx_id, e.position) > ${after('s.shard')}
                                       order by e.tx_id, e.position limit 1) e on true
                      union all
                      select -1, true where exists (select 1 from ${this.queue})) waiting
               order by random()) shards`;
    const queue = `select id, aggregate_id, topic, payload, headers from ${this.queue}
       where pg_try_advisory_xact_lock(hashtext(${key} || '.tail'), -1)
       order by seq limit ${limit} for update skip locked`;
    const tail = `with recursive mine as (
        select unnest(string_to_array(nullif(current_setting('platform.relay_shards'), ''), ',')::int[]) as shard
         where not exists (select 1 from ${this.queue})
      ),
      c as materialized (select tx_ids, positions from ${this.cursor} limit 1),
      next as (
        select e.tx_id, e.position
          from c cross join mine m
          cross join lateral (select e.tx_id, e.position from ${this.events} e
                               where e.shard = m.shard and (e.tx_id, e.position) > ${after('m.shard')} and e.tx_id < ${horizon}
                               order by e.tx_id, e.position limit ${limit}) e
         order by e.tx_id, e.position limit ${limit}
      ),
      batch as (select e.* from next n cross join lateral (select ${columns} from ${this.events} e where e.position = n.position limit 1) e),
      firsts as (select distinct on (stream_id) stream_id, stream_version, shard from batch order by stream_id, stream_version),
      early as (
        select e.*
          from firsts f cross join c
          cross join lateral (select ${columns} from ${this.events} e
                               where e.stream_id = f.stream_id and e.stream_version = f.stream_version - 1 and e.shard = f.shard
                                 and (e.tx_id, e.position) > ${after('f.shard')} limit 1) e
         where f.stream_version > 1
        union all
        select e.*
          from early p cross join c
          cross join lateral (select ${columns} from ${this.events} e
                               where e.stream_id = p.stream_id and e.stream_version = p.stream_version - 1 and e.shard = p.shard
                                 and (e.tx_id, e.position) > ${after('p.shard')} limit 1) e
      )
      select stream_id, stream_version, event_id, type, data, metadata, occurred_at, tx_id, position, shard, false as early from batch
      union all
      select *, true from early`;
    return [lease, queue, tail];
  }

  /** Moves each shard's cursor to its last event in the batch (predecessors read early do not move it): one row write. */
  private cursorMoveSql(tail: TailRow[]): string {
    const last = new Map<number, TailRow>();
    for (const row of tail) {
      if (row.early) continue;
      const before = last.get(row.shard);
      if (!before || (compareBig(row.tx_id, before.tx_id) || compareBig(row.position, before.position)) > 0) last.set(row.shard, row);
    }
    if (last.size === 0) return '';
    const sets = [...last.entries()].flatMap(([shard, row]) => [
      `tx_ids[${shard + 1}] = ${quoteText(row.tx_id)}::xid8`,
      `positions[${shard + 1}] = ${BigInt(row.position).toString()}`,
    ]);
    return `update ${this.cursor} set ${sets.join(', ')}; `;
  }

  private queueDeleteSql(queued: QueueRow[]): string {
    if (queued.length === 0) return '';
    return `delete from ${this.queue} where id = any(${quoteText(`{${queued.map((r) => r.id).join(',')}}`)}::uuid[]); `;
  }

  private async send(messages: Message[]): Promise<void> {
    const byTopic = new Map<string, Omit<Message, 'topic'>[]>();
    for (const { topic, ...message } of messages) {
      const list = byTopic.get(topic) ?? [];
      list.push(message);
      byTopic.set(topic, list);
    }
    await this.options.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic.entries()].map(([topic, list]) => ({ topic, messages: list })),
    });
  }

  /** With spans exported, starts the message's PRODUCER span (below the writer's traceparent) and puts it in the headers. */
  private traced(message: Message, spans: Span[]): Message {
    const tracer = this.options.tracer;
    if (!tracer) return message;
    const parent = propagation.extract(context.active(), message.headers);
    const span = tracer.startSpan(
      `${message.topic} publish`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': message.topic,
          'messaging.kafka.message.key': message.key,
        },
      },
      parent,
    );
    spans.push(span);
    const headers: Record<string, string> = { ...message.headers };
    delete headers.traceparent;
    delete headers.tracestate;
    propagation.inject(trace.setSpan(context.active(), span), headers);
    return { ...message, headers };
  }
}

/**
 * The batch's events with each stream's in version order: predecessors read early first, then the
 * batch in (tx_id, position) order, and within that order a stream's events take its slots in version
 * order (a transaction that began earlier may hold a stream's later version).
 */
export function inStreamOrder<Row extends { stream_id: string; stream_version: number; early: boolean; tx_id: string; position: string }>(rows: Row[]): Row[] {
  const early = rows
    .filter((row) => row.early)
    .sort((a, b) => (a.stream_id === b.stream_id ? a.stream_version - b.stream_version : a.stream_id < b.stream_id ? -1 : 1));
  const batch = rows.filter((row) => !row.early).sort((a, b) => compareBig(a.tx_id, b.tx_id) || compareBig(a.position, b.position));
  const ordered = [...early, ...batch];
  const slots = new Map<string, number[]>();
  ordered.forEach((row, i) => {
    const list = slots.get(row.stream_id) ?? [];
    list.push(i);
    slots.set(row.stream_id, list);
  });
  const result = [...ordered];
  for (const indexes of slots.values()) {
    if (indexes.length < 2) continue;
    const sorted = indexes.map((i) => ordered[i]).sort((a, b) => a.stream_version - b.stream_version);
    indexes.forEach((slot, k) => (result[slot] = sorted[k]));
  }
  return result;
}

function compareBig(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
