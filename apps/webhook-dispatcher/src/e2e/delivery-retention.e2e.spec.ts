import {
  advanceClock,
  api,
  createTestApp,
  eventually,
  expectStatus,
  queryDatabase,
  registerWebhook,
  requestsTo,
  startWebhookReceiver,
  type HttpsReceiver,
} from '#platform/testing';

/** Finished deliveries, their attempts and their events' records go 30 days after they were made (ADR 0189). */
let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(0);
});
afterAll(async () => {
  await receiver?.close();
});

const count = async (sql: string, params: unknown[]) => Number((await queryDatabase<{ n: string }>(sql, params))[0].n);

describe('webhook delivery records retention (e2e)', () => {
  it('deletes a delivered delivery, its attempts and its event 30 days on; the log no longer lists it', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 1, 15_000);
    const [delivery] = await eventually(async () => {
      const { data } = expectStatus(await api('GET', `/webhook-deliveries?subscriptionId=${hook.id}`, app.sandboxKey), 200).body;
      return data.length === 1 && data[0].status === 'delivered' ? data : null;
    });
    const kept = async () => ({
      deliveries: await count(`select count(*) as n from webhook_dispatcher.deliveries where endpoint_id = $1`, [hook.id]),
      attempts: await count(`select count(*) as n from webhook_dispatcher.delivery_attempts where delivery_id = $1`, [delivery.id]),
      events: await count(`select count(*) as n from webhook_dispatcher.public_events where event_id = $1`, [delivery.eventId]),
    });
    expect(await kept()).toEqual({ deliveries: 1, attempts: 1, events: 1 });

    await advanceClock(31 * 24 * 3600);
    await eventually(async () => {
      const now = await kept();
      return now.deliveries + now.attempts + now.events === 0 ? now : null;
    }, 15_000);
    expect(expectStatus(await api('GET', `/webhook-deliveries?subscriptionId=${hook.id}`, app.sandboxKey), 200).body.data).toEqual([]);
  });
});
