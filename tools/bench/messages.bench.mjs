/**
 * POST /messages, sustained: accepted sends per second and p50/p99 latency through the whole path
 * (gateway pipeline and Idempotency-Key record, Kafka request/reply, messaging's decision, append,
 * projections, outbox, handoff to chat-sim), every request with its own key, over many recipients.
 * Usage: npm run bench:messages [-- --users 200 --seconds 20 --connections 50]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { inParallel, measure, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({
  options: { users: { type: 'string', default: '200' }, seconds: { type: 'string', default: '20' }, connections: { type: 'string', default: '50' } },
});

await withBenchStack(async ({ publicUrl, admin }) => {
  const { orgId, appId, key } = await seedApp(admin, 'Sends');
  await admin('PATCH', `/apps/${appId}`, { dailyQuota: 100_000_000 });
  // Accepted testers who wrote first: opted in, reply window open (no business-initiated cap).
  const appUserIds = await inParallel(Array.from({ length: Number(values.users) }, (_, i) => i), 8, async (i) => {
    const user = await admin('POST', '/users', { orgId, email: `send-bench-${i}-${Date.now()}@example.test` });
    await admin('POST', `/apps/${appId}/testers`, { userId: user.id });
    await admin('POST', `/sim/users/${user.id}/apps/${appId}/accept-tester`);
    return (await admin('POST', `/sim/users/${user.id}/messages`, { appId, type: 'text', text: 'hi' })).appUserId;
  });

  let n = 0;
  await measure(
    'POST /messages',
    {
      url: `${publicUrl}/messages`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      connections: Number(values.connections),
      duration: Number(values.seconds),
      requests: [
        {
          setupRequest: (req) => {
            const i = n++;
            return {
              ...req,
              headers: { ...req.headers, 'idempotency-key': randomUUID() },
              body: JSON.stringify({ to: { appUserId: appUserIds[i % appUserIds.length] }, type: 'text', text: `bench message ${i}`, clientReference: `b-${i}` }),
            };
          },
        },
      ],
    },
    { recipients: appUserIds.length },
  );
});
