import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { admin, appWithTester, eventually, expectStatus, queryDatabase, sendMessage, simInbox, simSendText } from '@platform/testing';

const run = promisify(execFile);
const COMMAND = path.join(__dirname, 'commands/replay-projections.mjs');

/** md5 of every column of the messages given, in key order: the rebuilt rows must be byte-identical. */
async function messagesChecksum(ids: string[]): Promise<{ n: number; md5: string }> {
  const [row] = await queryDatabase<{ n: number; md5: string }>(
    `select count(*)::int as n, md5(coalesce(string_agg(m::text, '|' order by message_id), '')) as md5 from messaging.messages m where message_id = any($1)`,
    [ids],
  );
  return row;
}

/** (message, status, version) as a fold of the event store says, against the table. */
async function foldMatchesTable(appIds: string[]): Promise<{ fromEvents: string; fromTable: string; n: number }> {
  const [row] = await queryDatabase<{ from_events: string; from_table: string; n: number }>(
    `with last as (
       select distinct on (stream_id) data->>'messageId' as message_id, stream_version as version,
         case type when 'MessageAccepted' then 'accepted' when 'MessageSent' then 'sent' when 'MessageDelivered' then 'delivered'
                   when 'MessageRead' then 'read' when 'MessageFailed' then 'failed' when 'MessageReceived' then 'received' end as status
       from messaging.events where metadata->>'appId' = any($1) order by stream_id, stream_version desc)
     select (select md5(string_agg(message_id || ':' || status || ':' || version, '|' order by message_id)) from last) as from_events,
            (select md5(string_agg(message_id || ':' || status || ':' || version, '|' order by message_id)) from messaging.messages where app_id = any($1)) as from_table,
            (select count(*)::int from last) as n`,
    [appIds],
  );
  return { fromEvents: row.from_events, fromTable: row.from_table, n: row.n };
}

async function dailyCountsMatch(appIds: string[]): Promise<{ fromEvents: string; fromTable: string }> {
  const [row] = await queryDatabase<{ from_events: string; from_table: string }>(
    `select (select string_agg(app_id || ':' || day || ':' || n, '|' order by app_id, day) from (
               select metadata->>'appId' as app_id, (occurred_at at time zone 'UTC')::date as day, count(*) as n
               from messaging.events where type = 'MessageAccepted' and metadata->>'appId' = any($1) group by 1, 2) e) as from_events,
            (select string_agg(app_id || ':' || day || ':' || accepted, '|' order by app_id, day) from messaging.daily_counts where app_id = any($1)) as from_table`,
    [appIds],
  );
  return { fromEvents: row.from_events, fromTable: row.from_table };
}

describe('platformctl replay projections (e2e)', () => {
  it('rebuilds messaging projections while sends continue: rows identical, counts and checksums match the event store, no send fails', async () => {
    const a = await appWithTester();
    const b = await appWithTester();
    const appIds = [a.app.appId, b.app.appId];
    const send = async (who: typeof a, text: string) => {
      const res = await sendMessage(who.app.sandboxKey, { to: { appUserId: who.appUserId }, type: 'text', text });
      return res;
    };

    // Before: messages in every status the receipts can give.
    // The users write first: their reply windows open (D7 caps business-initiated sends) and inbound rows exist.
    const before: string[] = [(await simSendText(a.userId, a.app.appId)).id, (await simSendText(b.userId, b.app.appId)).id];
    for (let i = 0; i < 30; i++) before.push(expectStatus(await send(i % 2 ? a : b, `before ${i}`), 202).body.id);
    await eventually(async () => (await simInbox(a.userId, a.app.appId)).length >= 15);
    for (const [i, id] of before.slice(2).entries()) {
      if (i % 2 === 0 || i % 3 === 0) continue;
      expectStatus(await admin('POST', `/sim/users/${a.userId}/receipts`, { messageId: id, status: i % 5 === 0 ? 'read' : 'delivered' }), 200);
    }
    const beforeSum = await messagesChecksum(before);
    expect(beforeSum.n).toBe(32);

    // Sends keep going from two clients while the rebuild runs (small pages: many reads, tails and a real swap).
    let stop = false;
    const failures: string[] = [];
    const during: string[] = [];
    const sender = async (who: typeof a) => {
      for (let i = 0; !stop; i++) {
        const res = await send(who, `during ${i}`);
        if (res.status === 202) during.push(res.body.id);
        else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
        // Below the per-app rate limit (100/s): a 429 would say nothing about the rebuild.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const senders = [sender(a), sender(b)];
    await eventually(async () => during.length >= 10);
    const { stdout } = await run(process.execPath, [COMMAND, '--service', 'messaging', '--page-size', '7', '--quiet'], { env: process.env });
    const report = JSON.parse(stdout.trim().split('\n').pop() as string);
    const sentWhileRebuilding = during.length;
    await eventually(async () => during.length >= sentWhileRebuilding + 10);
    stop = true;
    await Promise.all(senders);

    expect(failures).toEqual([]);
    expect(report.service).toBe('messaging');
    expect(report.events).toBeGreaterThanOrEqual(60);
    // The messages that existed before are byte-identical after the rebuild (every column).
    expect(await messagesChecksum(before)).toEqual(beforeSum);
    // Every message, including those sent during and after the swap, is in the table as the events say.
    const fold = await foldMatchesTable(appIds);
    expect(fold.n).toBe(before.length + during.length);
    expect(fold.fromTable).toBe(fold.fromEvents);
    const [{ n }] = await queryDatabase<{ n: number }>(`select count(*)::int as n from messaging.messages where app_id = any($1)`, [appIds]);
    expect(n).toBe(before.length + during.length);
    const counts = await dailyCountsMatch(appIds);
    expect(counts.fromTable).toBe(counts.fromEvents);
    // Reads still work on the swapped table.
    expect(expectStatus(await send(a, 'after'), 202).body.status).toBe('accepted');
  });
});
