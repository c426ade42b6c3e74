/**
 * GET /users/{appUserId} (consent + reply window from the consent service's projection, through
 * the gateway and Kafka request/reply): requests per second and p50/p99, over many distinct users.
 * Also GET /consents pages. Usage: npm run bench:users [-- --users 1000 --seconds 15 --connections 50]
 */
import { parseArgs } from 'node:util';
import { inParallel, measure, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({
  options: { users: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '15' }, connections: { type: 'string', default: '50' } },
});

await withBenchStack(async ({ publicUrl, admin }) => {
  const { orgId, appId, key } = await seedApp(admin, 'Consents');
  const started = Date.now();
  // Each user's first message is their opt-in (user_initiated) and opens their reply window.
  const appUserIds = await inParallel(
    Array.from({ length: Number(values.users) }, (_, i) => i),
    16,
    async (i) => {
      const user = await admin('POST', '/users', { orgId, email: `bench-${i}-${Date.now()}@example.test` });
      return (await admin('POST', `/sim/users/${user.id}/messages`, { appId, type: 'text', text: 'hi' })).appUserId;
    },
  );
  console.log(JSON.stringify({ seeded: appUserIds.length, seedSeconds: (Date.now() - started) / 1000 }));

  const headers = { authorization: `Bearer ${key}` };
  let n = 0;
  await measure(
    'GET /users/{appUserId}',
    {
      url: `${publicUrl}/users/${appUserIds[0]}`,
      headers,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      requests: [{ setupRequest: (req) => ({ ...req, path: `/platform/v1/users/${appUserIds[n++ % appUserIds.length]}` }) }],
    },
    { users: appUserIds.length },
  );
  await measure(
    'GET /consents?limit=100',
    {
      url: `${publicUrl}/consents?limit=100`,
      headers,
      connections: Number(values.connections),
      duration: Number(values.seconds),
    },
    { users: appUserIds.length },
  );
});
