import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, confirm, EXIT, out, table } from '../lib/cli.mjs';
import { withDatabase } from '../lib/clients.mjs';
import { progressBar } from '../lib/progress.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Each service's schema and the outbox route its main module exports (the very function its EventStore uses). */
const SERVICES = {
  messaging: { schema: 'messaging', route: 'messagingOutboxRoute' },
  consent: { schema: 'consent', route: 'consentOutboxRoute' },
  media: { schema: 'media', route: 'mediaOutboxRoute' },
  profile: { schema: 'profile', route: 'profileOutboxRoute' },
  gateway: { schema: 'gateway', route: 'gatewayOutboxRoute' },
  'chat-sim': { schema: 'chat_sim', route: 'chatSimOutboxRoute' },
  'webhook-dispatcher': { schema: 'webhook_dispatcher', route: 'webhookOutboxRoute' },
};
const BATCH = 500;

/** The service's outbox route and the event store's own row mapping (storedEvent, outboxRowFor), from the build. */
function loadCompiled(service, namespace) {
  const main = path.join(ROOT, 'dist/apps', service, 'src/main.js');
  if (!existsSync(main)) throw new CliError(`${main} is missing: run npm run build first`);
  // Topic names read KAFKA_NAMESPACE when routed; the service's modules load without starting it.
  process.env.KAFKA_NAMESPACE = namespace;
  const require = createRequire(import.meta.url);
  const route = require(main)[SERVICES[service].route];
  if (typeof route !== 'function') throw new CliError(`${main} does not export ${SERVICES[service].route}`);
  const { storedEvent, outboxRowFor, routesOf } = require(path.join(ROOT, 'dist/libs/event-store/src/event-store.js'));
  const { EVENT_HEADERS } = require(path.join(ROOT, 'dist/libs/contracts/src/domain-event.js'));
  return { route: (event) => routesOf(route(event)), storedEvent, outboxRowFor, redrivenHeader: EVENT_HEADERS.redrivenAt };
}

/**
 * Republishes stored events read from the event table by queueing them in the relay's republish queue
 * (the `outbox` table), exactly as the relay publishes them (same event ids, topics, keys, payloads
 * and headers, through the service's own route, derived handoffs included); the running service's
 * relay publishes them before it tails on, marked `redriven-at`. A consumer's inbox holds the ids it applied within
 * its window (7 days), so nothing applies twice; a copy of an older event is passed over (counted in
 * consumer_stale_redrives_total), since the inbox may have forgotten it.
 */
export default {
  name: ['outbox', 'redrive'],
  summary: "Republish a service's stored events (by occurredAt) from its event table; the relay sends them again.",
  description:
    'Times are the platform clock (occurredAt), as the API shows them. Events the service keeps private (route null) are skipped.\n' +
    "Consumers pass over copies of events older than their inbox's 7-day window (old history is applied again to fresh tables by replay projections).\n" +
    'Handoffs derived from an event (messaging MessageHandedOver on chat.outbound) go out again with it.\n' +
    'Needs the built service (dist/, npm run build) for its outbox route, and the service running to publish.',
  options: {
    service: { type: 'string', required: true, choices: Object.keys(SERVICES), description: 'service whose events to republish' },
    since: { type: 'string', required: true, format: 'time', placeholder: 'ISO', description: 'first occurredAt to include' },
    until: { type: 'string', format: 'time', placeholder: 'ISO', description: 'occurredAt to stop before (default: now)' },
    type: { type: 'string', description: 'only events of this type' },
    'dry-run': { type: 'boolean', description: 'count what would be republished, write nothing' },
    yes: { type: 'boolean', short: 'y', description: 'apply without asking' },
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  examples: ['platformctl outbox redrive --service messaging --since 2026-11-22T08:00:00Z --until 2026-11-22T09:00:00Z --yes'],
  async run({ values, config }) {
    const { schema } = SERVICES[values.service];
    const { route, storedEvent, outboxRowFor, redrivenHeader } = loadCompiled(values.service, config.kafkaNamespace);
    const redrivenAt = new Date().toISOString();
    const since = new Date(values.since);
    const until = values.until ? new Date(values.until) : null;
    return withDatabase(config, async (db) => {
      const where = `occurred_at >= $1 and ($2::timestamptz is null or occurred_at < $2) and ($3::text is null or type = $3)`;
      const params = [since, until, values.type ?? null];
      const [{ n }] = (await db.query(`select count(*)::int as n from "${schema}".events where ${where}`, params)).rows;
      const dryRun = values['dry-run'];
      const summary = {
        service: values.service,
        since: since.toISOString(),
        until: until?.toISOString() ?? null,
        events: n,
        republished: 0,
        alreadyWaiting: 0,
        private: 0,
        byTopic: {},
      };
      const report = () => {
        if (values.json) out(JSON.stringify(summary, null, 2));
        else {
          out(`${values.service}: ${n} event(s) with occurredAt in [${summary.since}, ${summary.until ?? 'now'})`);
          if (Object.keys(summary.byTopic).length) out(table(['topic', 'events'], Object.entries(summary.byTopic)));
          out(
            dryRun
              ? `dry run: would republish ${n - summary.private}, private (not published) ${summary.private}`
              : `republished ${summary.republished}, already queued ${summary.alreadyWaiting}, private (not published) ${summary.private}`,
          );
        }
      };
      if (!dryRun && n > 0 && !(await confirm(values, `Republish ${n} event(s) of ${values.service}?`))) {
        process.stderr.write('not applied\n');
        return EXIT.refused;
      }
      const bar = progressBar(dryRun ? 'counting' : 'redriving', n);
      let after = 0;
      for (;;) {
        const { rows } = await db.query(
          `select position, stream_id, stream_version, event_id, type, data, metadata, occurred_at from "${schema}".events where ${where} and position > $4 order by position limit ${BATCH}`,
          [...params, after],
        );
        if (rows.length === 0) break;
        after = rows[rows.length - 1].position;
        const outbox = [];
        for (const row of rows) {
          const event = storedEvent(row.stream_id, row);
          const routes = route(event);
          if (routes.length === 0) {
            summary.private += 1;
            continue;
          }
          for (const r of routes) {
            summary.byTopic[r.topic] = (summary.byTopic[r.topic] ?? 0) + 1;
            // No trace context: a redrive is not part of the request that caused the event. The copy says it is
            // one: a consumer passes over a copy of an event older than its inbox's window (ADR 0190).
            outbox.push(outboxRowFor(event, r, { [redrivenHeader]: redrivenAt }));
          }
        }
        if (!dryRun && outbox.length > 0) {
          // Rows still waiting (not yet sent) keep their place; in one transaction with the wake-up of the relay.
          await db.query('begin');
          try {
            const res = await db.query(
              `insert into "${schema}".outbox (id, aggregate_type, aggregate_id, type, topic, payload, headers)
               select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[]) on conflict (id) do nothing`,
              [0, 1, 2, 3, 4, 5, 6].map((i) => outbox.map((row) => row[i])),
            );
            await db.query(`select pg_notify($1, '')`, [`${schema}_outbox`]);
            await db.query('commit');
            summary.republished += res.rowCount;
            summary.alreadyWaiting += outbox.length - res.rowCount;
          } catch (error) {
            await db.query('rollback').catch(() => undefined);
            throw error;
          }
        }
        bar.tick(rows.length);
      }
      bar.finish();
      report();
      return EXIT.ok;
    });
  },
};
