import { confirm, EXIT, namespaced, out, refused, table, usageError } from '../lib/cli.mjs';
import { withKafkaAdmin } from '../lib/clients.mjs';

/**
 * Moves a consumer group's committed offsets on one topic. Kafka only accepts offsets for a group
 * without members, and a group that is consuming would overwrite them anyway: an active group is
 * refused (exit 3) — stop its service first. Consumers are idempotent (applied offsets and inbox), so re-reading
 * changes nothing.
 */
export default {
  name: ['replay', 'topic'],
  summary: 'Reset a consumer group on a topic to a time or an offset (refused while the group has members).',
  description:
    'Shows, per partition, the committed offset, the target, the end and how many messages the group will (re-)read.\n' +
    'Names without the KAFKA_NAMESPACE prefix get it. --dry-run only shows the plan; --yes applies it.',
  options: {
    topic: { type: 'string', required: true, description: 'topic, e.g. messaging.events' },
    group: { type: 'string', required: true, description: 'consumer group, e.g. webhook-dispatcher.public-events' },
    'to-time': { type: 'string', format: 'time', placeholder: 'ISO', description: 'first message at or after this broker timestamp' },
    'to-offset': { type: 'string', placeholder: 'earliest|latest|N', description: 'earliest, latest or an absolute offset (clamped to each partition)' },
    'dry-run': { type: 'boolean', description: 'show the plan, change nothing' },
    yes: { type: 'boolean', short: 'y', description: 'apply without asking' },
    json: { type: 'boolean', description: 'print the plan as JSON' },
  },
  oneOf: [['to-time', 'to-offset']],
  examples: [
    'platformctl replay topic --topic messaging.events --group webhook-dispatcher.public-events --to-offset earliest --dry-run',
    'platformctl replay topic --topic consent.events --group messaging.consent --to-time 2026-11-22T08:00:00Z --yes',
  ],
  async run({ values, config }) {
    const toOffset = values['to-offset'];
    if (toOffset !== undefined && !/^(earliest|latest|\d+)$/.test(toOffset)) throw usageError('--to-offset must be earliest, latest or a non-negative integer');
    const topic = namespaced(config, values.topic);
    const groupId = namespaced(config, values.group);
    return withKafkaAdmin(config, async (admin) => {
      const assertInactive = async () => {
        const [group] = (await admin.describeGroups([groupId])).groups;
        if (group && group.members.length > 0) {
          throw refused(
            `group ${groupId} is ${group.state} with ${group.members.length} member(s) (${[...new Set(group.members.map((m) => m.clientHost))].join(', ')}): stop its consumers first`,
          );
        }
      };
      if (!(await admin.listTopics()).includes(topic)) throw usageError(`no topic ${topic}`);
      await assertInactive();
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const byTime = values['to-time'] ? await admin.fetchTopicOffsetsByTimestamp(topic, Date.parse(values['to-time'])) : null;
      const plan = ends
        .map((p) => {
          const low = Number(p.low);
          const high = Number(p.high);
          const current = Number(committed?.partitions.find((c) => c.partition === p.partition)?.offset ?? -1);
          let target;
          if (byTime) {
            const found = Number(byTime.find((t) => t.partition === p.partition)?.offset ?? -1);
            target = found < 0 ? high : found;
          } else if (toOffset === 'earliest') target = low;
          else if (toOffset === 'latest') target = high;
          else target = Math.min(Math.max(Number(toOffset), low), high);
          const from = current < 0 ? low : current;
          return {
            partition: p.partition,
            current: current < 0 ? null : current,
            target,
            end: high,
            reread: Math.max(0, from - target),
            toRead: high - target,
          };
        })
        .sort((a, b) => a.partition - b.partition);
      const totals = { reread: plan.reduce((n, p) => n + p.reread, 0), toRead: plan.reduce((n, p) => n + p.toRead, 0) };
      if (values.json) out(JSON.stringify({ topic, group: groupId, partitions: plan, ...totals, applied: false }, null, 2));
      else {
        out(`topic ${topic}, group ${groupId}`);
        out(
          table(
            ['partition', 'current', 'target', 'end', 're-read', 'to read'],
            plan.map((p) => [p.partition, p.current ?? '(none)', p.target, p.end, p.reread, p.toRead]),
          ),
        );
        out(`total: ${totals.reread} message(s) re-read, ${totals.toRead} to read after the reset`);
      }
      if (values['dry-run']) return EXIT.ok;
      if (!(await confirm(values, `Reset ${groupId} on ${topic}?`))) {
        process.stderr.write('not applied\n');
        return EXIT.refused;
      }
      // The group may have come back while we looked; Kafka would refuse, but say why.
      await assertInactive();
      await admin.setOffsets({ groupId, topic, partitions: plan.map((p) => ({ partition: p.partition, offset: String(p.target) })) });
      if (!values.json) out(`reset ${groupId} on ${topic}: ${plan.length} partition(s)`);
      return EXIT.ok;
    });
  },
};
