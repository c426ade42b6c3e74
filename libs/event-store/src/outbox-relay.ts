import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Producer } from 'kafkajs';
import { Pool, type PoolClient } from 'pg';
import { PgListener } from '#platform/postgres';
import { handlePoolErrors } from '#platform/postgres';
import { outboxChannel, quoteIdent } from './schema.sql';
import { queryEach, quoteText } from '#platform/postgres';

export interface OutboxRelayOptions {
  schema: string;
  /** Connection string of the service's own role. */
  databaseUrl: string;
  producer: Producer;
  batchSize?: number;
  /** How long to wait after a notification before publishing, so bursts go out as one batch (default 5 ms). */
  lingerMs?: number;
  /** Fallback poll, so rows left by a crashed relay or a missed notification still go out. */
  pollIntervalMs?: number;
  /**
   * Rows deleted after which the relay vacuums its outbox (default 5 000; 0 never). Every row is
   * inserted and deleted within moments, so the dead rows are nearly all the table: each read walks
   * past the dead entries at the head of the `seq` index, and the backlog gauge scans the heap.
   */
  vacuumEveryRows?: number;
  onError?: (error: unknown) => void;
  onPublished?: (count: number) => void;
  /**
   * When spans are exported: each row's publish is a PRODUCER span, child of the unit of work that
   * wrote the event, and the message carries that span's traceparent, so consumers hang below it.
   */
  tracer?: Tracer | null;
}

interface OutboxRow {
  id: string;
  aggregate_id: string;
  topic: string;
  payload: unknown;
  headers: Record<string, string>;
}

/**
 * How many shards an outbox is split into for publishing: a key's rows are all in shard
 * `hashtext(aggregate_id) & (OUTBOX_SHARDS - 1)`. A power of two, so the mask is a modulo that
 * cannot go negative. Changing it while relays of the old value still run would let two relays
 * publish one key: it is a constant of the platform, not a setting.
 */
export const OUTBOX_SHARDS = 16;

/** The SQL expression for a row's shard (its `aggregate_id` is the Kafka key). */
export const OUTBOX_SHARD_SQL = `(hashtext(aggregate_id) & ${OUTBOX_SHARDS - 1})`;

/**
 * Publishes outbox rows to Kafka in commit order (architecture section 2). Every replica of a service runs
 * one; they share the work by shard (docs/adr/0192-outbox-relays-share-the-outbox-by-shard.md). Each
 * batch takes, under transaction-scoped advisory locks, every shard with waiting rows that no other
 * relay holds, then reads those shards' oldest rows: one relay per shard at a time keeps per-key
 * order, and rows of shards another relay is publishing are left to it. Rows are locked, sent as one
 * batch, and deleted in the same transaction: a relay that dies mid-batch rolls back and the rows go
 * out again (at-least-once; consumers' inboxes make that harmless).
 */
export class OutboxRelay {
  private readonly pool: Pool;
  private readonly listener: PgListener;
  private running = false;
  private endWait: (() => void) | null = null;
  private pending = false;
  private loop: Promise<void> | null = null;
  private readonly lockKey: string;
  /** The schema's outbox table, quoted for SQL. */
  private readonly outbox: string;
  private deletedSinceVacuum = 0;
  /**
   * The last read left shards with waiting rows to another relay holding them. That relay may have
   * read before this process's rows committed, and rows committed without a NOTIFY (`wake`) never woke
   * it: this relay tries again soon (backing off up to the poll interval) instead of at the next poll.
   */
  private lockWasBusy = false;
  private busyRetries = 0;
  private vacuuming: Promise<void> | null = null;

  constructor(private readonly options: OutboxRelayOptions) {
    // A relay whose host vanishes must not hold its row locks and the advisory lock for hours.
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 2,
      application_name: `${options.schema}-outbox-relay`,
      options: '-c idle_in_transaction_session_timeout=60s',
    });
    handlePoolErrors(this.pool, (error) => options.onError?.(error));
    this.lockKey = `${options.schema}.outbox-relay`;
    this.outbox = `${quoteIdent(options.schema)}.outbox`;
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
    await this.vacuuming;
    await this.listener.stop();
    await this.pool.end().catch(() => undefined);
  }

  /** Number of rows waiting and the age of the oldest, for /metrics and readiness. */
  async backlog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const { rows } = await this.pool.query(
      `select count(*)::int as count, coalesce(extract(epoch from now() - min(created_at)), 0)::float as age from ${this.outbox}`,
    );
    return { count: rows[0].count, oldestAgeSeconds: rows[0].age };
  }

  /** Publishes everything waiting now in the shards no other relay holds; returns how many rows went out. */
  async drain(): Promise<number> {
    let total = 0;
    const batchSize = this.options.batchSize ?? 500;
    for (;;) {
      const sent = await this.publishBatch();
      total += sent;
      // A short batch emptied its shards as of its read; rows committed since have notified us, and
      // shards held by other relays are retried soon (`lockWasBusy`).
      if (sent < batchSize) return total;
    }
  }

  /**
   * Rows were committed: publish them (what a notification does). Also called in this process once a
   * transaction committed rows without a NOTIFY (`appendStatements` with `committedBy`); a crash
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
   * Vacuums the outbox on the relay's second connection once enough rows were deleted, while
   * publishing goes on. Autovacuum, where it runs at all, comes by a table once a minute at most;
   * the outbox of a busy service gathers a hundred thousand dead rows in that time. `skip_locked`
   * leaves the table to a vacuum already under way; `truncate false` never takes the exclusive lock
   * that giving back the file's empty tail would need, which would stop every send's outbox insert.
   */
  private deleted(count: number): void {
    const every = this.options.vacuumEveryRows ?? 5000;
    this.deletedSinceVacuum += count;
    if (every <= 0 || this.deletedSinceVacuum < every || this.vacuuming) return;
    this.deletedSinceVacuum = 0;
    this.vacuuming = this.pool
      .query(`vacuum (skip_locked, truncate false) ${this.outbox}`)
      .then(
        () => undefined,
        (error: unknown) => this.options.onError?.(error),
      )
      .finally(() => (this.vacuuming = null));
  }

  /**
   * One locked batch, in two round trips: `begin` with the shard locks and the read of their rows,
   * then the delete with `commit`. Returns how many rows went out (0 also when other relays hold
   * every shard with waiting rows).
   */
  private async publishBatch(): Promise<number> {
    const client: PoolClient = await this.pool.connect();
    let broken: Error | undefined;
    try {
      // Simple-protocol text (several statements in one message), so the values are literals. The
      // shards are locked in a statement of their own and named in a transaction-local setting, so the
      // read's snapshot is taken once they are held: it sees every row committed before, and no shard
      // is taken halfway through a scan that has already passed its older rows.
      // Relays of the earlier design take the relay key exclusively for every batch; this one takes it
      // shared, so both never publish at once while replicas of the two versions run side by side.
      const key = quoteText(this.lockKey);
      const read = await queryEach(
        client,
        `begin;
         select set_config('platform.outbox_shards', coalesce(string_agg(shard::text, ',') filter (where locked), ''), true) as mine,
                count(*)::int as waiting
           from (select shard,
                        case when pg_try_advisory_xact_lock_shared(hashtext(${key}))
                             then pg_try_advisory_xact_lock(hashtext(${key}), shard) else false end as locked
                   from (select distinct ${OUTBOX_SHARD_SQL} as shard from ${this.outbox}) waiting
                  order by random()) shards;
         select id, aggregate_id, topic, payload, headers from ${this.outbox}
          where ${OUTBOX_SHARD_SQL} = any(string_to_array(nullif(current_setting('platform.outbox_shards'), ''), ',')::int[])
          order by seq limit ${Math.trunc(this.options.batchSize ?? 500)} for update`,
      );
      const rows = read[2].rows as OutboxRow[];
      const { mine, waiting } = read[1].rows[0] as { mine: string; waiting: number };
      const taken = mine === '' ? 0 : mine.split(',').length;
      // Shards with rows that another relay holds: it may have read before some of them committed.
      this.lockWasBusy = taken < waiting;
      if (rows.length === 0) {
        await client.query('commit');
        return 0;
      }
      const byTopic = new Map<string, { key: string; value: string; headers: Record<string, string> }[]>();
      const spans: Span[] = [];
      for (const row of rows) {
        const messages = byTopic.get(row.topic) ?? [];
        const headers = this.options.tracer ? this.publishSpan(this.options.tracer, row, spans) : (row.headers ?? {});
        messages.push({ key: row.aggregate_id, value: JSON.stringify(row.payload), headers });
        byTopic.set(row.topic, messages);
      }
      try {
        await this.options.producer.sendBatch({
          acks: -1,
          topicMessages: [...byTopic.entries()].map(([topic, messages]) => ({ topic, messages })),
        });
      } catch (error) {
        for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
        throw error;
      } finally {
        for (const span of spans) span.end();
      }
      await client.query(`delete from ${this.outbox} where id = any(${quoteText(`{${rows.map((r) => r.id).join(',')}}`)}::uuid[]); commit`);
      this.options.onPublished?.(rows.length);
      this.deleted(rows.length);
      return rows.length;
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

  /** Starts the row's PRODUCER span (below the writer's traceparent) and returns the headers that carry it. */
  private publishSpan(tracer: Tracer, row: OutboxRow, spans: Span[]): Record<string, string> {
    const written = row.headers ?? {};
    const parent = propagation.extract(context.active(), written);
    const span = tracer.startSpan(
      `${row.topic} publish`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': row.topic,
          'messaging.kafka.message.key': row.aggregate_id,
        },
      },
      parent,
    );
    spans.push(span);
    const headers: Record<string, string> = { ...written };
    delete headers.traceparent;
    delete headers.tracestate;
    propagation.inject(trace.setSpan(context.active(), span), headers);
    return headers;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
