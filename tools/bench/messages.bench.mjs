/**
 * POST /messages, sustained: accepted sends per second and p50/p99 latency through the whole path
 * (gateway pipeline and Idempotency-Key record, Kafka request/reply, messaging's decision, append,
 * projections, outbox, handoff to chat-sim), every request with its own key, over many recipients.
 * With --apps N the recipients are spread over N apps (one key each), which shows what one app's
 * D8 counter row (every send of an app updates it before commit) costs against many senders.
 * With --rate R the sends come at an even R per second whatever the answers take (open loop, see
 * `paced`): the latency at a given load, where the default (50 connections, each sending as soon as
 * its last answer came) gives the most the stack can take and the latency at that saturation.
 * With --replicas N the gateway, messaging and webhook-dispatcher run N times each (replicas.mjs), the
 * connections spread over the gateways, an HTTPS endpoint subscribed to message.status, and after the
 * run the bench checks that every accepted send was stored once, handed to the chat product once and
 * its `sent` webhook arrived, that every stream's events are in order on Kafka, and prints how the
 * messaging replicas shared the outbox. `--replicas 1` is the same run and checks on one of each.
 * With --accept-path-only the chat simulator and the webhook dispatcher are stopped (SIGSTOP) while
 * measuring and resumed after: the figure of the accept path alone (HTTP, the RPC to messaging, its
 * transaction, the relay), without the work each send causes off that path on the same cores.
 * Usage: npm run bench:messages [-- --users 200 --seconds 20 --connections 50 --apps 1 --rate 0 --warmup 10 --windows 1 --replicas N --accept-path-only]
 * (--warmup: seconds at the same pace before measuring, with --rate; --windows: measurements of
 * `--seconds` each on the same stack after one warm-up, with --rate, each reported, then their p50s and p99s)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { inParallel, measure, paced, postJson, seedApp, withBenchStack } from './bench-stack.mjs';
import { replicaChecks } from './replica-checks.mjs';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '50' },
    apps: { type: 'string', default: '1' },
    rate: { type: 'string', default: '0' },
    warmup: { type: 'string', default: '10' },
    windows: { type: 'string', default: '1' },
    replicas: { type: 'string' },
    'accept-path-only': { type: 'boolean', default: false },
  },
});
const offPath = values['accept-path-only'] ? ['chat-sim', 'webhook-dispatcher'] : [];
if (offPath.length > 0 && values.replicas !== undefined) throw new Error('--accept-path-only leaves no webhooks for the replica checks');
const checked = values.replicas === undefined ? null : await replicaChecks();

await withBenchStack(
  async ({ publicUrl, admin, adminMetricsUrl, replicas, freeze }) => {
    const apps = [];
    for (let a = 0; a < Number(values.apps); a++) {
      const app = await seedApp(admin, `Sends${a}`);
      await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 100_000_000 });
      apps.push(app);
      await checked?.subscribe(publicUrl, app.key);
    }
    // Accepted testers who wrote first: opted in, reply window open (no business-initiated cap).
    const recipients = await inParallel(
      Array.from({ length: Number(values.users) }, (_, i) => i),
      8,
      async (i) => {
        const { orgId, appId, key } = apps[i % apps.length];
        const user = await admin('POST', '/users', { orgId, email: `send-bench-${i}-${Date.now()}@example.test` });
        await admin('POST', `/apps/${appId}/testers`, { userId: user.id });
        await admin('POST', `/sim/users/${user.id}/apps/${appId}/accept-tester`);
        return { key, appUserId: (await admin('POST', `/sim/users/${user.id}/messages`, { appId, type: 'text', text: 'hi' })).appUserId };
      },
    );

    const extra = { recipients: recipients.length, apps: apps.length, ...(offPath.length > 0 ? { stoppedWhileMeasuring: offPath } : {}) };
    const resume = freeze(offPath);
    const body = (i) =>
      JSON.stringify({ to: { appUserId: recipients[i % recipients.length].appUserId }, type: 'text', text: `bench message ${i}`, clientReference: `b-${i}` });
    if (Number(values.rate) > 0) {
      await paced(
        'POST /messages at an even rate',
        {
          rate: Number(values.rate),
          seconds: Number(values.seconds),
          warmupSeconds: Number(values.warmup),
          windows: Number(values.windows),
          metricsUrl: adminMetricsUrl,
          send: (i) =>
            postJson(
              `${replicas.publicUrls[i % replicas.publicUrls.length]}/messages`,
              { authorization: `Bearer ${recipients[i % recipients.length].key}`, 'idempotency-key': randomUUID() },
              body(i),
            ),
        },
        extra,
      );
      resume();
      return;
    }

    let n = 0;
    await measure(
      checked ? `POST /messages over ${replicas.publicUrls.length} replicas` : 'POST /messages',
      {
        urls: replicas.publicUrls.map((url) => `${url}/messages`),
        onResponse: (status) => checked?.answered(status),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        connections: Number(values.connections),
        duration: Number(values.seconds),
        requests: [
          {
            setupRequest: (req) => {
              const i = n++;
              const { key } = recipients[i % recipients.length];
              return {
                ...req,
                headers: { ...req.headers, authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
                body: body(i),
              };
            },
          },
        ],
      },
      extra,
    );
    resume();
    await checked?.verify({ appIds: apps.map((a) => a.appId), attempted: n, replicas });
  },
  { replicas: Number(values.replicas ?? 1) },
).finally(() => checked?.stop());
