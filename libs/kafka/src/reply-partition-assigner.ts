import type { PartitionAssigner } from '@nestjs/microservices/external/kafka.interface';
import { AssignerProtocol } from 'kafkajs';

/**
 * Which partition of each reply topic a reply consumer reads: `partition`, wrapped to the topic's
 * partition count. Every member of the group gets the same (the group is one replica's own).
 */
export function replyPartitionAssignment(
  memberIds: string[],
  topics: string[],
  partitionCount: (topic: string) => number,
  partition: number,
): { memberId: string; assignment: Record<string, number[]> }[] {
  const assignment: Record<string, number[]> = {};
  for (const topic of topics) {
    const count = partitionCount(topic);
    if (count > 0) assignment[topic] = [partition % count];
  }
  return memberIds.map((memberId) => ({ memberId, assignment }));
}

/**
 * The reply consumer's assigner (typed as @nestjs/microservices passes it on to kafkajs): one
 * partition per reply topic, the replica's own. The RPC client
 * names its assigned partition as the reply partition of every request (@nestjs/microservices sends
 * the lowest partition it was assigned), so the services answer there and a replica fetches and
 * decodes its own replies only, not every replica's.
 */
export function replyPartitionAssigner(partition: number): PartitionAssigner {
  return ({ cluster }) => ({
    name: 'ReplyPartitionAssigner',
    version: 0,
    async assign({ members, topics }) {
      return replyPartitionAssignment(
        members.map((member) => member.memberId),
        topics,
        (topic) => cluster.findTopicPartitionMetadata(topic).length,
        partition,
      ).map(({ memberId, assignment }) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData: Buffer.alloc(0) }),
      }));
    },
    protocol({ topics }) {
      return { name: 'ReplyPartitionAssigner', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
    },
  });
}
