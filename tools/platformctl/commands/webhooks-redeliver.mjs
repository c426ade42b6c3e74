import { CliError, confirm, EXIT, out, table } from '../lib/cli.mjs';
import { adminCall, withDatabase } from '../lib/clients.mjs';
import { progressBar } from '../lib/progress.mjs';

const CONCURRENCY = 4;

/**
 * Bulk replay through the API's own path: each delivery goes to the admin API's
 * POST /apps/{appId}/webhook-deliveries/{id}/replay, which runs the dispatcher's `deliveries.replay`
 * (D24: a new delivery, same event id and bytes) with all its rules (409 delivery_in_progress,
 * payload_expired, subscription_not_verified). Those 409s are counted as skipped.
 */
export default {
  name: ['webhooks', 'redeliver'],
  summary: "Replay an app's webhook deliveries in bulk (new delivery ids, same events), as POST …/replay does.",
  description:
    'Picks each (endpoint, event) with a delivery created in [--since, --until) (platform clock) and replays its latest\n' +
    "delivery, even one made after --until, when that one's status matches --status; so a run never sends one event twice\n" +
    'to one endpoint, and an event already redelivered is judged by how its redelivery went. Needs DATABASE_URL (to\n' +
    'select) and the admin API (to replay).',
  options: {
    app: { type: 'string', required: true, placeholder: 'appId', description: 'app id (app_…)' },
    since: { type: 'string', required: true, format: 'time', placeholder: 'ISO', description: 'deliveries created at or after this time' },
    until: { type: 'string', format: 'time', placeholder: 'ISO', description: 'deliveries created before this time (default: no end)' },
    type: { type: 'string', description: 'only this event type, e.g. message.status' },
    status: { type: 'string', choices: ['failed', 'delivered', 'all'], default: 'failed', description: 'which deliveries to replay' },
    'dry-run': { type: 'boolean', description: 'list what would be replayed, replay nothing' },
    yes: { type: 'boolean', short: 'y', description: 'apply without asking' },
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  examples: ['platformctl webhooks redeliver --app app_… --since 2026-11-22T00:00:00Z --status failed --yes'],
  async run({ values, config }) {
    const rows = await withDatabase(
      config,
      async (db) =>
        (
          await db.query(
            // The window chooses the events, not their latest delivery: with the time filter inside
            // DISTINCT ON, --until hid a later redelivery and an event delivered since was sent again.
            `select * from (
             select distinct on (d.endpoint_id, d.event_id) d.delivery_id, d.endpoint_id, d.event_id, d.event_type, d.status, d.created_at
             from webhook_dispatcher.deliveries d
             where d.app_id = $1 and ($4::text is null or d.event_type = $4)
               and exists (select 1 from webhook_dispatcher.deliveries w
                           where w.endpoint_id = d.endpoint_id and w.event_id = d.event_id
                             and w.created_at >= $2 and ($3::timestamptz is null or w.created_at < $3))
             order by d.endpoint_id, d.event_id, d.delivery_id desc) latest
           where ($5 = 'all' and status <> 'pending') or status = $5
           order by delivery_id`,
            [values.app, new Date(values.since), values.until ? new Date(values.until) : null, values.type ?? null, values.status],
          )
        ).rows,
    );
    const summary = { app: values.app, selected: rows.length, replayed: 0, skipped: 0, failed: 0, deliveries: [] };
    if (values['dry-run']) {
      if (values.json)
        out(
          JSON.stringify(
            { ...summary, deliveries: rows.map((r) => ({ deliveryId: r.delivery_id, eventId: r.event_id, eventType: r.event_type, status: r.status })) },
            null,
            2,
          ),
        );
      else
        out(
          table(
            ['delivery', 'event', 'type', 'status', 'created'],
            rows.map((r) => [r.delivery_id, r.event_id, r.event_type, r.status, r.created_at.toISOString()]),
          ) + `\ndry run: ${rows.length} delivery(ies) would be replayed`,
        );
      return EXIT.ok;
    }
    if (rows.length > 0 && !(await confirm(values, `Replay ${rows.length} delivery(ies) of ${values.app}?`))) {
      process.stderr.write('not applied\n');
      return EXIT.refused;
    }
    const bar = progressBar('replaying', rows.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, rows.length) }, async () => {
        while (next < rows.length) {
          const row = rows[next++];
          const res = await adminCall(
            config,
            'POST',
            `/apps/${encodeURIComponent(values.app)}/webhook-deliveries/${encodeURIComponent(row.delivery_id)}/replay`,
            {},
          );
          const entry = { deliveryId: row.delivery_id, eventId: row.event_id, status: res.status };
          if (res.status === 202) {
            summary.replayed += 1;
            entry.newDeliveryId = res.body.id;
          } else {
            entry.error = res.body?.error?.code ?? JSON.stringify(res.body);
            if (res.status === 409) summary.skipped += 1;
            else summary.failed += 1;
          }
          summary.deliveries.push(entry);
          bar.tick();
        }
      }),
    );
    bar.finish();
    if (values.json) out(JSON.stringify(summary, null, 2));
    else {
      const notDone = summary.deliveries.filter((d) => d.status !== 202);
      if (notDone.length)
        out(
          table(
            ['delivery', 'event', 'answer', 'error'],
            notDone.map((d) => [d.deliveryId, d.eventId, d.status, d.error]),
          ),
        );
      out(`replayed ${summary.replayed}, skipped ${summary.skipped} (409), failed ${summary.failed} of ${summary.selected}`);
    }
    if (summary.failed > 0) throw new CliError(`${summary.failed} replay(s) failed`);
    return EXIT.ok;
  },
};
