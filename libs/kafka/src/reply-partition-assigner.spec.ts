import { replyPartitionAssignment } from './reply-partition-assigner';

describe('replyPartitionAssignment', () => {
  const counts: Record<string, number> = { 'messaging.rpc.reply': 6, 'consent.rpc.reply': 4, 'gone.rpc.reply': 0 };

  it('gives the member the one partition of each reply topic, wrapped to the topic’s partitions', () => {
    expect(replyPartitionAssignment(['m1'], ['messaging.rpc.reply', 'consent.rpc.reply'], (topic) => counts[topic], 5)).toEqual([
      { memberId: 'm1', assignment: { 'messaging.rpc.reply': [5], 'consent.rpc.reply': [1] } },
    ]);
  });

  it('leaves out a topic without partitions, and gives every member of the group the same', () => {
    expect(replyPartitionAssignment(['m1', 'm2'], ['messaging.rpc.reply', 'gone.rpc.reply'], (topic) => counts[topic], 2)).toEqual([
      { memberId: 'm1', assignment: { 'messaging.rpc.reply': [2] } },
      { memberId: 'm2', assignment: { 'messaging.rpc.reply': [2] } },
    ]);
  });
});
