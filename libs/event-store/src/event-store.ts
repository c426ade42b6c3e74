// Over 300 lines because the append (events, outbox rows, traces, version conflicts) is one statement
// built in one place; the helpers below it are the stored-event shapes that statement writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { context, propagation } from '@opentelemetry/api';
import { derivedUuidv7, EVENT_HEADERS, uuidv7, type DomainEvent } from '#platform/contracts';
import { foldEvents, type Decider } from '#platform/decider';
import { pgTextArray } from './inbox';
import type { PipelinedTransaction, Row, Statement } from '#platform/postgres';
import { outboxChannel, quoteIdent } from './schema.sql';

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

/** Where an event goes on Kafka; null keeps it private to the service. */
export interface OutboxRoute {
  topic: string;
  /** Kafka key: the aggregate whose order matters. */
  key: string;
  aggregateType: string;
  /** Replaces `data` in the published copy, to keep private fields (such as a key hash) out of Kafka. */
  publishedData?: unknown;
}

export type ExpectedVersion = number | 'any';

/** One stream's part of a batched append (EventStore.appendMany). */
export interface StreamAppend {
  streamId: string;
  /** The stream's version before these events (0 for a new stream). */
  expectedVersion: number;
  events: NewEvent[];
  meta: AppendMeta;
  /** Outbox-only events derived from the appended ones (see EventStore.append). */
  alsoPublish?: (stored: DomainEvent[]) => DomainEvent[];
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
 * the append, the inline projections and the outbox rows commit in one transaction.
 */
export class EventStore {
  private readonly table: string;
  private readonly outbox: string;
  private wakeRelay: (() => void) | null = null;

  constructor(
    readonly schema: string,
    private readonly route: (event: DomainEvent) => OutboxRoute | null,
  ) {
    this.table = `${quoteIdent(schema)}.events`;
    this.outbox = `${quoteIdent(schema)}.outbox`;
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
   * Appends events at `expectedVersion` (0 for a new stream) and writes their outbox rows.
   * Must run inside `em.transactional`. Throws StreamVersionConflict when another writer won.
   */
  async append(
    em: EntityManager,
    streamId: string,
    expectedVersion: ExpectedVersion,
    newEvents: NewEvent[],
    meta: AppendMeta,
    /** Outbox-only events derived from the appended ones (a handoff to another topic), written in the same statement. */
    alsoPublish?: (stored: DomainEvent[]) => DomainEvent[],
  ): Promise<DomainEvent[]> {
    if (newEvents.length === 0) return [];
    let base: number;
    if (expectedVersion === 'any') {
      const [row] = await em.execute(`select coalesce(max(stream_version), 0) as v from ${this.table} where stream_id = ?`, [streamId]);
      base = Number(row.v);
    } else {
      base = expectedVersion;
    }
    const [events] = await this.appendMany(em, [{ streamId, expectedVersion: base, events: newEvents, meta, alsoPublish }]);
    return events;
  }

  /**
   * Appends to many streams in one statement, and writes all their outbox rows in one more: what a
   * batch of commands (group commit) decided. Each append is at its own expected version; a
   * conflict on any of them throws StreamVersionConflict and the caller's transaction must roll back.
   */
  async appendMany(em: EntityManager, appends: StreamAppend[]): Promise<DomainEvent[][]> {
    const { stored, statements } = this.appendStatements(appends);
    if (statements.length === 0) return stored;
    const [events, outbox] = statements;
    try {
      await em.execute(events.sql, events.params);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new StreamVersionConflict(appends.map((a) => a.streamId).join(', '), appends.length === 1 ? appends[0].expectedVersion : 'any');
      throw error;
    }
    if (outbox) await em.execute(outbox.sql, outbox.params);
    return stored;
  }

  /**
   * What appendMany runs, without running it: the stored events of each append, and the statements
   * (the events, then their outbox rows), for a caller that sends them with others in one round trip
   * (PipelinedTransaction). A stream version conflict then surfaces as the unique violation itself.
   *
   * `committedBy`, the transaction the statements will commit in, lets this process's own relay
   * (`wakeRelayWith`) be woken once it has committed instead of by the outbox's NOTIFY: Postgres
   * signals every backend listening in the database on each notifying commit, whatever the channel,
   * so a service committing a hundred batches a second woke every other service's relay listener as
   * often, for nothing. Without a relay in this process the NOTIFY stays.
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
    const placeholders = all.map((e) => {
      values.push(
        e.streamId,
        e.streamVersion,
        e.eventId,
        e.type,
        JSON.stringify(e.data),
        JSON.stringify({ schemaVersion: e.schemaVersion, appId: e.appId, correlationId: e.correlationId, causationId: e.causationId }),
        e.occurredAt,
      );
      return '(?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)';
    });
    const outbox = this.outboxStatement(
      appends.flatMap((append, i) => {
        const events = append.alsoPublish ? [...stored[i], ...append.alsoPublish(stored[i])] : stored[i];
        return events.map((event) => ({ event, trace: append.trace }));
      }),
      !wakeAfterCommit,
    );
    if (outbox && wakeAfterCommit) options.committedBy!.afterCommit(wakeAfterCommit);
    const insert = {
      sql: `insert into ${this.table} (stream_id, stream_version, event_id, type, data, metadata, occurred_at) values ${placeholders.join(', ')}`,
      params: values,
    };
    return { stored, statements: outbox ? [insert, outbox] : [insert] };
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

  /** Writes outbox rows for already-built events (also used to publish events that are not stored in a stream). */
  async writeOutbox(em: EntityManager, events: DomainEvent[]): Promise<void> {
    await this.writeOutboxRows(
      em,
      events.map((event) => ({ event })),
    );
  }

  /**
   * One round trip: the rows, and the notification that is delivered at commit, so the relay wakes
   * only for rows it can see. Each row's Kafka headers carry the W3C trace context of its unit of
   * work (`trace`, or the active one), so consumers continue that trace.
   */
  private async writeOutboxRows(em: EntityManager, rows: { event: DomainEvent; trace?: Record<string, string> }[]): Promise<void> {
    const statement = this.outboxStatement(rows);
    if (statement) await em.execute(statement.sql, statement.params);
  }

  private outboxStatement(rows: { event: DomainEvent; trace?: Record<string, string> }[], notify = true): Statement | null {
    const values: unknown[] = [];
    const placeholders: string[] = [];
    let active: Record<string, string> | undefined;
    for (const { event, trace } of rows) {
      const route = this.route(event);
      if (!route) continue;
      if (!trace && !active) {
        active = {};
        propagation.inject(context.active(), active);
      }
      values.push(...outboxRowFor(event, route, trace ?? active!));
      placeholders.push('(?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)');
    }
    if (placeholders.length === 0) return null;
    const insert = `insert into ${this.outbox} (id, aggregate_type, aggregate_id, type, topic, payload, headers) values ${placeholders.join(', ')}`;
    if (!notify) return { sql: insert, params: values };
    return {
      sql: `with written as (${insert} returning 1)
       select pg_notify(?, '') from (select count(*) from written) as n`,
      params: [...values, outboxChannel(this.schema)],
    };
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

/**
 * The outbox row of a routed event, Debezium-style: id (the event id), aggregate type, aggregate id
 * (the Kafka key), type, topic, payload (with `publishedData` in place of data when the route says
 * so) and the Kafka headers, including the unit of work's trace context.
 */
export function outboxRowFor(event: DomainEvent, route: OutboxRoute, trace: Record<string, string>): [string, string, string, string, string, string, string] {
  return [
    event.eventId,
    route.aggregateType,
    route.key,
    event.type,
    route.topic,
    JSON.stringify(route.publishedData === undefined ? event : { ...event, data: route.publishedData }),
    JSON.stringify({
      [EVENT_HEADERS.eventId]: event.eventId,
      [EVENT_HEADERS.type]: event.type,
      ...(event.correlationId ? { [EVENT_HEADERS.correlationId]: event.correlationId } : {}),
      ...trace,
    }),
  ];
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.code === '23505' || e?.cause?.code === '23505';
}
