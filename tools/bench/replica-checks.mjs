/**
 * What `bench:messages --replicas N` checks after its run: an HTTPS receiver subscribed to every
 * app's message.status webhooks and the count of accepted answers, then (once the webhooks have come)
 * every accepted send stored once, handed to the chat product once, its `sent` webhook arrived once,
 * and every stream's events in order on messaging's topic. A failed check sets the exit code.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { benchEnv, BENCH_BASE_PORT } from './bench-stack.mjs';
import { checkStreamOrder, outboxPublishedPerReplica } from './replicas.mjs';

const require = createRequire(import.meta.url);

/** Starts the receiver and points the stack's webhooks at it; call before the stack starts. */
export async function replicaChecks() {
  const { HttpsReceiver } = require(path.join(ROOT, 'dist/libs/testing/src/https-receiver.js'));
  const { testCertificates } = require(path.join(ROOT, 'dist/libs/testing/src/test-certificates.js'));
  const port = BENCH_BASE_PORT + 72;
  const certs = testCertificates(path.join(ROOT, '.data/test-certs'));
  Object.assign(benchEnv, { WEBHOOK_DEV_HOSTS: `hooks.local.test=127.0.0.1:${port}`, WEBHOOK_CA_FILE: certs.caFile });
  const receiver = await HttpsReceiver.start({ port, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });

  /** clientReference → how many distinct `sent` webhooks named it. */
  const sent = new Map();
  const webhookIds = new Set();
  let redelivered = 0;
  receiver.respond((/** @type {{ method: string, rawBody: Buffer, headers: Record<string, string> }} */ req) => {
    if (req.method !== 'POST') return undefined;
    const id = req.headers['webhook-id'];
    if (webhookIds.has(id)) {
      redelivered++;
      return undefined;
    }
    webhookIds.add(id);
    const body = JSON.parse(req.rawBody.toString('utf8'));
    if (body.data?.status === 'sent' && body.data.clientReference) sent.set(body.data.clientReference, (sent.get(body.data.clientReference) ?? 0) + 1);
    return undefined;
  });
  let accepted = 0;
  let refused = 0;

  return {
    /** Subscribes an app (by its key) to message.status at the receiver. */
    async subscribe(/** @type {string} */ publicUrl, /** @type {string} */ key) {
      const res = await fetch(`${publicUrl}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://hooks.local.test/replicas`, verifyToken: 'bench-verify-token', events: ['message.status'] }),
      });
      if (!res.ok) throw new Error(`POST /webhooks: ${res.status} ${await res.text()}`);
    },
    answered(/** @type {number} */ status) {
      if (status === 202) accepted++;
      else refused++;
    },
    /**
     * `attempted`: sends the client started. Those still in flight when the run ended were accepted
     * by the platform but their answers never counted, so the stored sends lie between the two.
     * @param {{ appIds: string[], attempted: number, replicas: { publicUrls: string[], messagingMetricsUrls: string[] } }} run
     */
    async verify({ appIds, attempted, replicas }) {
      const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
      await db.connect();
      const count = async (/** @type {string} */ sql) => (await db.query(sql, [appIds])).rows[0].n;
      const outbound = `from messaging.messages where app_id = any($1) and direction = 'outbound'`;
      const stored = await count(`select count(*)::int as n ${outbound}`);
      const storedReferences = await count(`select count(distinct client_reference)::int as n ${outbound}`);
      const deadline = Date.now() + 120_000;
      const handedOverCount = () => count(`select count(*)::int as n from chat_sim.inbox_messages where app_id = any($1)`);
      while ((sent.size < stored || (await handedOverCount()) < stored) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      const handedOver = await handedOverCount();
      await db.end();
      const order = await checkStreamOrder({ brokers: (benchEnv.KAFKA_BROKERS ?? '').split(','), topic: `${benchEnv.KAFKA_NAMESPACE}messaging.events` });
      const sentTwice = [...sent.values()].filter((n) => n > 1).length;
      const report = {
        bench: `replica checks (${replicas.publicUrls.length} of gateway, messaging, webhook-dispatcher)`,
        attempted,
        accepted,
        refused,
        storedOutbound: stored,
        storedReferences,
        handedToChatProduct: handedOver,
        sentWebhooks: sent.size,
        sentWebhooksTwice: sentTwice,
        webhookRedeliveries: redelivered,
        kafkaOrder: order,
        outboxPublishedPerMessagingReplica: await outboxPublishedPerReplica(replicas.messagingMetricsUrls),
      };
      const failures = [
        (stored < accepted || stored > attempted) && 'stored sends are fewer than accepted or more than attempted ones',
        storedReferences !== stored && 'one request was stored as two sends',
        handedOver !== stored && 'handed-over sends differ from stored ones',
        sent.size !== stored && 'not every stored send had its sent webhook',
        sentTwice > 0 && 'a send had two sent webhooks',
        order.reordered > 0 && 'a stream was out of order on Kafka',
      ].filter(Boolean);
      console.log(JSON.stringify({ ...report, ok: failures.length === 0, failures }, null, 2));
      if (failures.length > 0) process.exitCode = 1;
    },
    stop: () => receiver.close(),
  };
}
