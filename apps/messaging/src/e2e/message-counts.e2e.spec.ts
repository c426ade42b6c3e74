import { admin, appWithTester, eventually, expectStatus, platformNow, queryDatabase, sendMessage } from '#platform/testing';

const countsOf = async (appId: string) =>
  queryDatabase<{ day: string; sent: number; delivered: number; read: number; failed: number }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sent, delivered, read, failed from messaging.message_daily_counts where app_id = $1 order by day`,
    [appId],
  );

/**
 * Messages per day by status (ADR 0218) are written with the events that move a message: the send's
 * group commit and the receipts' transactions. The rebuild from the event store is checked with the
 * other messaging projections (tools/platformctl/replay-projections.e2e.spec.ts).
 */
describe('messages per day by status (messaging, inline)', () => {
  it('counts each status a message reached once, on the UTC day it reached it, and only for its app', async () => {
    const since = await platformNow();
    const { app, userId, appUserId } = await appWithTester();
    const other = await appWithTester();
    const ids: string[] = [];
    for (const text of ['a', 'b', 'c']) ids.push(expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }), 202).body.id);
    expectStatus(await sendMessage(other.app.sandboxKey, { to: { appUserId: other.appUserId }, type: 'text', text: 'elsewhere' }), 202);
    await eventually(async () => (await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[0], status: 'delivered' })).status === 200, 15_000);
    expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[0], status: 'read' }), 200);
    // A read receipt that overtook the delivery one: read only.
    expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[1], status: 'read' }), 200);
    // The same receipt again moves nothing.
    expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[1], status: 'read' }), 200);
    const day = since.toISOString().slice(0, 10);
    const expected = [{ day, sent: 3, delivered: 1, read: 2, failed: 0 }];
    await eventually(async () => JSON.stringify(await countsOf(app.appId)) === JSON.stringify(expected), 20_000);
    expect(await countsOf(other.app.appId)).toEqual([{ day, sent: 1, delivered: 0, read: 0, failed: 0 }]);
  }, 60_000);
});
