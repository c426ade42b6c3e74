import { Client } from 'pg';
import { derivedId, ID_PREFIX } from '#platform/contracts';
import { queryStatement, type Statement } from '#platform/postgres';
import { publicEventsSliceStatement, type DecidedPublicEvent } from './public-events.records';

/**
 * The public-events consumer's slice statement against the dispatcher's real tables, in a
 * transaction rolled back at the end (the running workers never see its rows): the public event's
 * insert gates the deliveries and listen records, so a copy of a kept event creates nothing, even
 * once its deliveries and listen records are gone.
 */
let client: Client;
beforeAll(async () => {
  client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('begin');
});
afterAll(async () => {
  await client?.query('rollback');
  await client?.end();
});

/** Runs a statement on the test's transaction; returns its rows. */
const run = (statement: Statement) => queryStatement(client, statement);

const count = async (table: string, eventId: string): Promise<number> =>
  Number((await client.query(`select count(*) from webhook_dispatcher.${table} where event_id = $1`, [eventId])).rows[0].count);

function decided(eventId: string, now: Date): DecidedPublicEvent {
  return {
    eventId,
    appId: 'app_records_test',
    type: 'message.status',
    payload: '{"kept":true}',
    requiresMedia: [],
    sourceEventId: null,
    now,
    endpointIds: ['we_records_test_a', 'we_records_test_b'],
    listenSessionIds: ['ls_records_test'],
    traceparent: null,
  };
}

describe('public events slice statement (integration)', () => {
  it('creates the event, its deliveries and listen records once; a copy, in the slice or later, creates nothing', async () => {
    const now = new Date();
    const eventId = derivedId(ID_PREFIX.event, now.getTime(), `records-test-${now.getTime()}`);
    const later = new Date(now.getTime() + 1000);
    const woken = await run(publicEventsSliceStatement([decided(eventId, now), decided(eventId, later)]));
    expect(woken).toHaveLength(2); // the delivery workers once, the listen session once
    expect([await count('public_events', eventId), await count('deliveries', eventId), await count('listen_events', eventId)]).toEqual([1, 2, 1]);

    // A later copy (its delivery ids derive from a later time) after the deliveries and listen records were pruned.
    await client.query(`delete from webhook_dispatcher.deliveries where event_id = $1`, [eventId]);
    await client.query(`delete from webhook_dispatcher.listen_events where event_id = $1`, [eventId]);
    expect(await run(publicEventsSliceStatement([decided(eventId, new Date(now.getTime() + 60_000))]))).toEqual([]);
    expect([await count('public_events', eventId), await count('deliveries', eventId), await count('listen_events', eventId)]).toEqual([1, 0, 0]);
  });
});
