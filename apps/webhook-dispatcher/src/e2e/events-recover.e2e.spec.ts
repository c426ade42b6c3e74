import {
  advanceClock,
  api,
  appWithTester,
  eventually,
  expectError,
  expectStatus,
  platformNow,
  registerWebhook,
  requestsTo,
  sendMessage,
  startWebhookReceiver,
  type HttpsReceiver,
  type TestApp,
} from '#platform/testing';

/**
 * The events API and endpoint recovery (ADR 0223, ADR 0224) through the whole platform, in one file
 * on one stack: every case waits on conditions, and one clock jump serves both the outage's end and
 * the endpoint's disabling.
 */
const DAY = 24 * 3600 * 1000;

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(1);
});
afterAll(async () => {
  await receiver?.close();
});

const events = async (app: TestApp, query = '') => expectStatus(await api('GET', `/events${query ? `?${query}` : ''}`, app.sandboxKey), 200).body;
const recover = (app: TestApp, endpointId: string, since: string) => api('POST', `/webhooks/${endpointId}/recover`, app.sandboxKey, { since });
const send = async (app: TestApp, appUserId: string, text: string): Promise<string> =>
  expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }), 202).body.id;

/** The id of the `sent` message.status event of a message, once GET /events lists it. */
async function sentEventOf(app: TestApp, messageId: string): Promise<string> {
  const event = await eventually(async () => (await events(app, 'type=message.status')).data.find((e: any) => e.data.id === messageId), 15_000);
  return event.id;
}

describe('the events API (e2e)', () => {
  it('lists an app’s events newest first, as delivered, with type and time filters and pages; another app’s are not found', async () => {
    const { app, appUserId } = await appWithTester();
    const other = await appWithTester();
    // Nobody subscribed: the events are kept all the same.
    const sent = [await send(app, appUserId, 'one'), await send(app, appUserId, 'two'), await send(app, appUserId, 'three')];
    const statuses = await eventually(async () => {
      const { data } = await events(app, 'type=message.status');
      return data.length === 3 ? data : null;
    }, 15_000);
    expect(statuses.map((e: any) => e.data.id)).toEqual([...sent].reverse());
    expect(statuses[0]).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      type: 'message.status',
      apiVersion: expect.any(String),
      created: expect.any(Number),
      appId: app.appId,
      data: { id: sent[2], appUserId, status: 'sent', timestamp: expect.any(String) },
    });

    // Every type: the tester's opt-in came first.
    const all = (await events(app)).data;
    expect(all.map((e: any) => e.id)).toEqual([...statuses.map((e: any) => e.id), all[3].id]);
    expect(all[3]).toMatchObject({ type: 'consent.updated', data: { appUserId, status: 'opted_in', source: 'sandbox_tester' } });

    // Pages of two, following nextCursor, give the same events in the same order.
    const first = await events(app, 'limit=2');
    expect(first.data).toEqual(all.slice(0, 2));
    const second = await events(app, `limit=2&cursor=${first.nextCursor}`);
    expect({ data: second.data, nextCursor: second.nextCursor }).toEqual({ data: all.slice(2), nextCursor: null });

    // Time filters: at or after, and before, the middle send (its timestamp is the event's time).
    const middle = encodeURIComponent(statuses[1].data.timestamp);
    expect((await events(app, `createdAfter=${middle}`)).data).toEqual(statuses.slice(0, 2));
    expect((await events(app, `type=message.status&createdBefore=${middle}`)).data).toEqual(statuses.slice(2));

    // One event, exactly as listed; another app's key finds nothing of this app.
    expect(expectStatus(await api('GET', `/events/${statuses[1].id}`, app.sandboxKey), 200).body).toEqual(statuses[1]);
    expectError(await api('GET', `/events/${statuses[1].id}`, other.app.sandboxKey), 404, 'not_found');
    expectError(await api('GET', '/events/evt_01JD3QD6K9M2P5S8V1Y4B7E0GJ', app.sandboxKey), 404, 'not_found');
    const othersIds = (await events(other.app)).data.map((e: any) => e.id);
    expect(othersIds).toHaveLength(1);
    expect(all.map((e: any) => e.id)).not.toContain(othersIds[0]);

    const refused = await api('GET', '/events?type=webhook.test&limit=0&createdAfter=yesterday', app.sandboxKey);
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['createdAfter', 'limit', 'type']);
  });
});

describe('endpoint recovery (e2e)', () => {
  it('after an outage that disabled the endpoint, delivers each missed event once and nothing delivered again; one recovery at a time', async () => {
    const { app, appUserId } = await appWithTester();
    const other = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 1 });
    const since = (await platformNow()).toISOString();
    let mode: 'up' | 'down' | 'slow' = 'up';
    const answered: string[] = [];
    receiver.respond((req) => {
      if (req.path !== hook.path || req.method !== 'POST') return undefined;
      if (mode === 'down') return { status: 500 };
      answered.push(JSON.parse(req.rawBody.toString('utf8')).id);
      return { status: 200, delayMs: mode === 'slow' ? 1500 : 0 };
    });
    const bodiesSeen = () => requestsTo(receiver, hook.path).map((r) => JSON.parse(r.rawBody.toString('utf8')).id as string);

    const delivered = await sentEventOf(app, await send(app, appUserId, 'before the outage'));
    await receiver.waitFor(() => answered.includes(delivered), 15_000);
    mode = 'down';
    // Two missed events: with their retries the endpoint fails fewer than five times in a row, so its lane stays closed.
    const missed = [await sentEventOf(app, await send(app, appUserId, 'missed 1')), await sentEventOf(app, await send(app, appUserId, 'missed 2'))];
    await receiver.waitFor(() => missed.every((id) => bodiesSeen().includes(id)), 15_000);

    // Three days on: the retries gave up and the endpoint was disabled (D25).
    await advanceClock(3 * 24 * 3600 + 60);
    await eventually(async () => {
      const failed = expectStatus(await api('GET', `/webhook-deliveries?subscriptionId=${hook.id}&status=failed`, app.sandboxKey), 200).body.data;
      const endpoint = expectStatus(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 200).body;
      return failed.length === 2 && endpoint.state === 'disabled';
    }, 30_000);
    expectError(await recover(app, hook.id, since), 409, 'endpoint_disabled');

    // The endpoint is back and verified again; slow answers keep the recovered deliveries pending a while.
    mode = 'slow';
    expect(expectStatus(await api('POST', `/webhooks/${hook.id}/verify`, app.sandboxKey, { verifyToken: hook.verifyToken }), 200).body.state).toBe('enabled');
    const now = await platformNow();
    for (const tooFar of [new Date(now.getTime() - 7 * DAY - 60_000), new Date(now.getTime() + 3600_000)]) {
      const refused = await recover(app, hook.id, tooFar.toISOString());
      expectError(refused, 400, 'invalid_request');
      expect(refused.body.error.details).toEqual([{ field: 'since', issue: expect.any(String) }]);
    }
    expectError(await recover(other.app, hook.id, since), 404, 'not_found');

    expect(expectStatus(await recover(app, hook.id, since), 202).body).toEqual({ recovered: 2 });
    expectError(await recover(app, hook.id, since), 409, 'recover_in_progress');
    await receiver.waitFor(() => missed.every((id) => answered.includes(id)), 20_000);

    // Once its deliveries ended, a recovery finds nothing missed: every event was answered exactly once.
    const again = await eventually(async () => {
      const res = await recover(app, hook.id, since);
      return res.status === 202 ? res : null;
    }, 15_000);
    expect(again.body).toEqual({ recovered: 0 });
    expect([...answered].sort()).toEqual([delivered, ...missed].sort());

    // 30 days on, the events are gone from the API (the messages' expiry, D4, makes new ones).
    await advanceClock(31 * 24 * 3600);
    expectError(await api('GET', `/events/${delivered}`, app.sandboxKey), 404, 'not_found');
    const listed = (await events(app, 'limit=100')).data.map((e: any) => e.id);
    expect(listed.filter((id: string) => [delivered, ...missed].includes(id))).toEqual([]);
  }, 120_000);
});
