import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_EVENT_TYPES, ID_PREFIX, idTimeFloor, WEBHOOKS, type ListEventsCall, type PublicEventEnvelope, type PublicEventPage } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime } from '#platform/service-kit';
import { eventStatement, listEventsStatement, type EventIdRange, type KeptEventRow } from './events.sql';

const encodeCursor = (eventId: string) => Buffer.from(eventId, 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^evt_[0-9A-Z]{26}$/.test(id)) throw DomainError.invalid([{ field: 'cursor', issue: 'is not a cursor from a previous page' }]);
  return id;
}

/** The envelope exactly as delivered: the kept bytes, parsed (JSON.stringify gives the same bytes back). */
const envelope = (row: KeptEventRow): PublicEventEnvelope => JSON.parse(row.payload) as PublicEventEnvelope;

/**
 * GET /events and GET /events/{id} (ADR 0223): the app's public events of the last 30 days, from the
 * payloads the dispatcher keeps for its deliveries. Event ids sort by when the event happened, so the
 * time filters and the cursor (the last id seen) are all ranges of ids.
 */
@Injectable()
export class EventsHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'events.list': (p) => this.list(p),
      'events.get': (p) => this.get(String(p.appId), String(p.eventId)),
    });
  }

  async list(q: ListEventsCall): Promise<PublicEventPage> {
    const now = this.runtime.clock.now();
    const floors = [this.oldestKept(now)];
    if (q.createdAfter) floors.push(idTimeFloor(ID_PREFIX.event, Date.parse(q.createdAfter)));
    const ceilings: string[] = [];
    if (q.createdBefore) ceilings.push(idTimeFloor(ID_PREFIX.event, Date.parse(q.createdBefore)));
    if (q.cursor) ceilings.push(decodeCursor(q.cursor));
    const range: EventIdRange = { from: floors.sort().at(-1) as string, to: ceilings.sort()[0] ?? null };
    const types = q.type ? [q.type] : APP_EVENT_TYPES;
    const rows = await runStatement<KeptEventRow>(this.runtime.em(), listEventsStatement({ appId: q.appId, types, range, limit: q.limit, now }));
    const page = rows.slice(0, q.limit);
    return { data: page.map(envelope), nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1].event_id) : null };
  }

  /** Unknown, another app's, a webhook.test, older than 30 days, or a message.received whose files are not registered yet: not_found alike. */
  async get(appId: string, eventId: string): Promise<PublicEventEnvelope> {
    const now = this.runtime.clock.now();
    const [row] = await runStatement<KeptEventRow>(
      this.runtime.em(),
      eventStatement({ appId, eventId, types: APP_EVENT_TYPES, from: this.oldestKept(now), now }),
    );
    if (!row) throw new DomainError('not_found', 'No such event.');
    return envelope(row);
  }

  /** The lowest id still listed: events of the last WEBHOOKS.eventRetentionMs. */
  private oldestKept(now: Date): string {
    return idTimeFloor(ID_PREFIX.event, now.getTime() - WEBHOOKS.eventRetentionMs);
  }
}
