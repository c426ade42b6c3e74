import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { eventually } from '#platform/testing';

/**
 * The console calls the services over RPC as the gateway does (ADR 0203): its reply consumer reads a
 * partition of its own, so it never fetches the replies every send of the gateway waits for.
 */
const namespace = process.env.KAFKA_NAMESPACE ?? '';
const REPLY_GROUPS = `${namespace}gateway-replies-`;
const CONSOLE_GROUPS = `${REPLY_GROUPS}console-`;

/** The reply partitions each live reply group of the stack reads, as `topic:partition`, by group. */
async function replyAssignments(kafka: Kafka): Promise<Map<string, Set<string>>> {
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  try {
    const ids = (await kafkaAdmin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(REPLY_GROUPS));
    const { groups } = await kafkaAdmin.describeGroups(ids);
    const read = new Map<string, Set<string>>();
    for (const group of groups.filter((g) => g.state === 'Stable')) {
      const partitions = new Set<string>();
      for (const member of group.members) {
        const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
        for (const [topic, numbers] of Object.entries(decoded?.assignment ?? {})) for (const p of numbers) partitions.add(`${topic}:${p}`);
      }
      read.set(group.groupId, partitions);
    }
    return read;
  } finally {
    await kafkaAdmin.disconnect();
  }
}

describe('console: RPC replies (e2e)', () => {
  it('reads a reply partition that no gateway reads', async () => {
    const kafka = new Kafka({ clientId: 'test-reply-groups', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
    let read = new Map<string, Set<string>>();
    await eventually(
      async () => {
        read = await replyAssignments(kafka);
        return [...read.keys()].some((id) => id.startsWith(CONSOLE_GROUPS)) && [...read.keys()].some((id) => !id.startsWith(CONSOLE_GROUPS));
      },
      30_000,
      500,
    );
    const consoles = [...read].filter(([id]) => id.startsWith(CONSOLE_GROUPS));
    const gateways = [...read].filter(([id]) => !id.startsWith(CONSOLE_GROUPS));
    for (const [, consolePartitions] of consoles) {
      expect(consolePartitions.size).toBeGreaterThan(0);
      for (const [gateway, gatewayPartitions] of gateways) {
        expect({ gateway, shared: [...consolePartitions].filter((p) => gatewayPartitions.has(p)) }).toEqual({ gateway, shared: [] });
      }
    }
  });
});
