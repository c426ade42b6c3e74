// Over 300 lines because the append (events, shards, traces, version conflicts) is one statement built
// in one place; the helpers below it are the shapes that statement stores and the relay publishes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { context, propagation } from '@opentelemetry/api';
import { derivedUuidv7, EVENT_HEADERS, uuidv7, type DomainEvent } from '#platform/contracts';
import { foldEvents, type Decider } from '#platform/decider';
import { pgTextArray } from './inbox';
import type { PipelinedTransaction, Row, Statement } from '#platform/postgres';
import { outboxChannel, quoteIdent, relayShardOf } from './schema.sql';

/** An event as the decider produces it: type and data only. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** Context every append carries into the envelope (architecture section 2). */
export interface AppendMeta {
  now: Date;
  appId: string | null;
  correlationId: string | null;
  causationId: string | null;
  /**
   * Makes event ids a function of (seed, stream, position in the batch) instead of random. Consumers
   * pass the id of the event they react to, so re-applying the same input (a replay into a fresh
   * schema) mints the very same event ids and downstream inboxes recognise them.
   */
  idSeed?: string;
}

/**
 * Where an event goes on Kafka. A route function returns one, several (one event published to two
 * topics), or null to keep the event private to the service. It runs at the append (which stores the
 * shard of the first one's key) and again in the relay, so it must be a pure function of the event;
 * every event of one stream must route to keys of one shard (the first key decides).
 */
export interface OutboxRoute {
  topic: string;
  /** Kafka key: the aggregate whose order matters. */
  key: string;
  aggregateType: string;
  /** Replaces `data` in the published copy, to keep private fields (such as a key hash) out of Kafka. */
  publishedData?: unknown;
  /**
   * Derives the event to publish in place of the stored one (e.g. a handoff). Called by the relay
   * only: the append needs no more of a route than its key.
   */
  derive?: () => DomainEvent;
}

/** What a service's route function returns for one event. */
export type OutboxRoutes = OutboxRoute | OutboxRoute[] | null;

/** A route function's answer as a list (empty: private). */
export function routesOf(routed: OutboxRoutes): OutboxRoute[] {
  if (routed === null) return [];
  return Array.isArray(routed) ? routed : [routed];
}

export type ExpectedVersion = number | 'any';

/** One stream's part of a batched append (EventStore.appendMany). */
export interface StreamAppend {
  streamId: string;
  /** The stream's version before these events (0 for a new stream). */
  expectedVersion: number;
  events: NewEvent[];
  meta: AppendMeta;
  /** The W3C trace context of the command's own unit of work, when the batch runs outside it. */
  trace?: Record<string, string>;
}

/** Another writer appended to the stream first; reload and decide again. */
export class StreamVersionConflict extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: ExpectedVersion,
  ) {
    super(`Stream ${streamId} is not at version ${expectedVersion}`);
    this.name = 'StreamVersionConflict';
  }
}

/** A row of a service's `events` table, as read back. */
export interface EventRow {
  stream_version: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  occurred_at: Date | string;
}

/**
 * Postgres event store of one service schema. Every method takes the caller's EntityManager so that
 * the append and the inline projections commit in one transaction. The event table is also the
 * outbox: each appended event is written once, with the relay shard of its Kafka key, and the relay
 * (OutboxRelay) tails the table (docs/adr/0213-the-event-table-is-the-outbox.md).
 */
export class EventStore {
  private readonly table: string;
  private wakeRelay: (() => void) | null = null;

  constructor(
    readonly schema: string,
    readonly route: (event: DomainEvent) => OutboxRoutes,
  ) {
    this.table = `${quoteIdent(schema)}.events`;
  }

  /**
   * The outbox relay running in this process (`OutboxRelay.wake`), or null once it stopped: appends
   * told the transaction they commit in (appendStatements' `committedBy`) wake it then.
   */
  wakeRelayWith(wake: (() => void) | null): void {
    this.wakeRelay = wake;
  }

  async readStream(em: EntityManager, streamId: string): Promise<{ events: DomainEvent[]; version: number }> {
    const rows: EventRow[] = await em.execute(
      `select stream_version, event_id, type, data, metadata, occurred_at from ${this.table} where stream_id = ? order by stream_version`,
      [streamId],
    );
    const events = rows.map((row) => storedEvent(streamId, row));
    return { events, version: rows.length === 0 ? 0 : rows[rows.length - 1].stream_version };
  }

  /**
   * readStream for several streams, as one statement (for a PipelinedTransaction); `streamsFrom`
   * turns its rows into the streams.
   */
  readStreamsStatement(streamIds: string[]): Statement {
    return {
      sql: `select stream_id, stream_version, event_id, type, data, metadata, occurred_at from ${this.table} where stream_id = any(?::text[]) order by stream_id, stream_version`,
      params: [pgTextArray(streamIds)],
    };
  }

  /** The streams in the rows of readStreamsStatement; a stream without events is empty at version 0. */
  streamsFrom(rows: Row[]): Map<string, { events: DomainEvent[]; version: number }> {
    const streams = new Map<string, { events: DomainEvent[]; version: number }>();
    for (const row of rows as (EventRow & { stream_id: string })[]) {
      const stream = streams.get(row.stream_id) ?? { events: [], version: 0 };
      stream.events.push(storedEvent(row.stream_id, row));
      stream.version = row.stream_version;
      streams.set(row.stream_id, stream);
    }
    return streams;
  }

  /** Loads a stream and folds it with the decider's evolve. */
  async aggregate<State, Command, Event extends NewEvent>(
    em: EntityManager,
    streamId: string,
    decider: Decider<State, Command, Event>,
  ): Promise<{ state: State; version: number }> {
    const { events, version } = await this.readStream(em, streamId);
    const state = foldStoredEvents(decider, events);
    return { state, version };
  }

  /**
   * Appends events at `expectedVersion` (0 for a new stream); the relay publishes them once committed.
   * Must run inside `em.transactional`. Throws StreamVersionConflict when another writer won.
   */
  async append(em: EntityManager, streamId: string, expectedVersion: ExpectedVersion, newEvents: NewEvent[], meta: AppendMeta): Promise<DomainEvent[]> {
    if (newEvents.length === 0) return [];
    let base: number;
    if (expectedVersion === 'any') {
      const [row] = await em.execute(`select coalesce(max(stream_version), 0) as v from ${this.table} where stream_id = ?`, [streamId]);
      base = Number(row.v);
    } else {
      base = expectedVersion;
    }
    const [events] = await this.appendMany(em, [{ streamId, expectedVersion: base, events: newEvents, meta }]);
    return events;
  }

  /**
   * Appends to many streams in one statement: what a batch of commands (group commit) decided. Each
   * append is at its own expected version; a conflict on any of them throws StreamVersionConflict and
   * the caller's transaction must roll back.
   */
  async appendMany(em: EntityManager, appends: StreamAppend[]): Promise<DomainEvent[][]> {
    const { stored, statements } = this.appendStatements(appends);
    if (statements.length === 0) return stored;
    const [events] = statements;
    try {
      await em.execute(events.sql, events.params);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new StreamVersionConflict(appends.map((a) => a.streamId).join(', '), appends.length === 1 ? appends[0].expectedVersion : 'any');
      throw error;
    }
    return stored;
  }

  /**
   * What appendMany runs, without running it: the stored events of each append, and the one statement
   * that writes them, for a caller that sends it with others in one round trip (PipelinedTransaction).
   * A stream version conflict then surfaces as the unique violation itself.
   *
   * `committedBy`, the transaction the statement will commit in, lets this process's own relay
   * (`wakeRelayWith`) be woken once it has committed instead of by a NOTIFY: Postgres signals every
   * backend listening in the database on each notifying commit, whatever the channel, so a service
   * committing a hundred batches a second woke every other service's relay listener as often, for
   * nothing. Without a relay in this process the NOTIFY stays.
   */
  appendStatements(
    appends: StreamAppend[],
    options: { committedBy?: Pick<PipelinedTransaction, 'afterCommit'> } = {},
  ): { stored: DomainEvent[][]; statements: Statement[] } {
    const stored = appends.map((append) => this.newEventsOf(append));
    const all = stored.flat();
    if (all.length === 0) return { stored, statements: [] };
    const wakeAfterCommit = options.committedBy ? this.wakeRelay : null;
    const values: unknown[] = [];
    let published = false;
    let active: Record<string, string> | undefined;
    const placeholders = appends.flatMap((append, i) =>
      stored[i].map((e) => {
        const routes = routesOf(this.route(e));
        let trace: Record<string, string> | undefined;
        if (routes.length > 0) {
          published = true;
          // Each published copy carries the W3C trace context of its unit of work, so consumers continue that trace.
          if (!append.trace && !active) {
            active = {};
            propagation.inject(context.active(), active);
          }
          trace = append.trace ?? active;
        }
        values.push(
          e.streamId,
          e.streamVersion,
          e.eventId,
          e.type,
          JSON.stringify(e.data),
          JSON.stringify({
            schemaVersion: e.schemaVersion,
            appId: e.appId,
            correlationId: e.correlationId,
            causationId: e.causationId,
            ...(trace && Object.keys(trace).length > 0 ? { trace } : {}),
          }),
          e.occurredAt,
          routes.length > 0 ? relayShardOf(routes[0].key) : null,
        );
        return '(?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?::smallint)';
      }),
    );
    const insert = `insert into ${this.table} (stream_id, stream_version, event_id, type, data, metadata, occurred_at, shard) values ${placeholders.join(', ')}`;
    if (!published) return { stored, statements: [{ sql: insert, params: values }] };
    if (wakeAfterCommit) {
      options.committedBy!.afterCommit(wakeAfterCommit);
      return { stored, statements: [{ sql: insert, params: values }] };
    }
    // The notification is delivered at commit, so the relay wakes only for events it can see.
    return {
      stored,
      statements: [
        {
          sql: `with written as (${insert} returning 1) select pg_notify(?, '') from (select count(*) from written) as n`,
          params: [...values, outboxChannel(this.schema)],
        },
      ],
    };
  }

  private newEventsOf({ streamId, expectedVersion, events, meta }: StreamAppend): DomainEvent[] {
    const occurredAt = meta.now.toISOString();
    return events.map((event, i) => ({
      eventId: meta.idSeed === undefined ? uuidv7(meta.now.getTime()) : derivedUuidv7(meta.now.getTime(), `${meta.idSeed}|${streamId}|${i}`),
      type: event.type,
      schemaVersion: 1,
      occurredAt,
      appId: meta.appId,
      correlationId: meta.correlationId,
      causationId: meta.causationId,
      streamId,
      streamVersion: expectedVersion + i + 1,
      data: event.data,
    }));
  }
}

/** The state a decider's `evolve` makes of a stream's stored events (their type and data). */
export function foldStoredEvents<State, Event extends NewEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: DomainEvent[],
): State {
  return foldEvents(
    decider,
    events.map((e) => ({ type: e.type, data: e.data }) as Event),
  );
}

/** The event a stored row holds (what consumers, replays and redrives see). */
export function storedEvent(streamId: string, row: EventRow): DomainEvent {
  const meta = row.metadata ?? {};
  return {
    eventId: row.event_id,
    type: row.type,
    schemaVersion: Number(meta.schemaVersion ?? 1),
    occurredAt: new Date(row.occurred_at).toISOString(),
    appId: (meta.appId as string | null) ?? null,
    correlationId: (meta.correlationId as string | null) ?? null,
    causationId: (meta.causationId as string | null) ?? null,
    streamId,
    streamVersion: row.stream_version,
    data: row.data,
  };
}

/** The event a route publishes: the one it derives, or the stored one (with `publishedData` in place of data when it says so). */
export function publishedEvent(event: DomainEvent, route: OutboxRoute): DomainEvent {
  if (route.derive) return route.derive();
  return route.publishedData === undefined ? event : { ...event, data: route.publishedData };
}

/** The Kafka headers of a published event: its id, type and correlation id, and the trace context given. */
export function publishedHeaders(event: DomainEvent, trace: Record<string, string> | undefined): Record<string, string> {
  return {
    [EVENT_HEADERS.eventId]: event.eventId,
    [EVENT_HEADERS.type]: event.type,
    ...(event.correlationId ? { [EVENT_HEADERS.correlationId]: event.correlationId } : {}),
    ...trace,
  };
}

/**
 * A row of the republish queue (the `outbox` table) for a routed event, Debezium-style: id (the
 * published event's id), aggregate type, aggregate id (the Kafka key), type, topic, payload and the
 * Kafka headers. `platformctl outbox redrive` writes them.
 */
export function outboxRowFor(event: DomainEvent, route: OutboxRoute, trace: Record<string, string>): [string, string, string, string, string, string, string] {
  const published = publishedEvent(event, route);
  return [
    published.eventId,
    route.aggregateType,
    route.key,
    published.type,
    route.topic,
    JSON.stringify(published),
    JSON.stringify(publishedHeaders(published, trace)),
  ];
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.code === '23505' || e?.cause?.code === '23505';
}
