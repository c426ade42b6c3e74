import { randomBytes, randomUUID } from 'node:crypto';
import { Partitioners, type PartitionerArgs, type PartitionMetadata } from 'kafkajs';
import { KeyHashPartitioner, murmur2 } from './key-hash-partitioner';

const partitions = (n: number, leaderless: number[] = []): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({
    partitionId,
    leader: leaderless.includes(partitionId) ? -1 : 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));

const args = (key: PartitionerArgs['message']['key'], n: number, partition?: number): PartitionerArgs => ({
  topic: 't',
  partitionMetadata: partitions(n),
  message: { key, value: 'v', partition },
});

describe('KeyHashPartitioner', () => {
  const ours = KeyHashPartitioner();
  const kafkajs = Partitioners.DefaultPartitioner();

  it('puts every key on the partition kafkajs (and the Java client) puts it', () => {
    const keys: (string | Buffer)[] = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'app_01M82CC9ZEWGM9899K54TTGXY3:u_e4YIbTftu', 'héllo 👋'];
    for (let i = 0; i < 500; i++) keys.push(randomUUID().slice(0, i % 37), randomBytes(i % 41));
    for (const key of keys) {
      for (const n of [1, 3, 6, 10, 36]) expect([key, n, ours(args(key, n))]).toEqual([key, n, kafkajs(args(key, n))]);
    }
  });

  it('matches the Java client on its published murmur2 values', () => {
    // From Apache Kafka's UtilsTest.testMurmur2.
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
  });

  it('hashes a string key as its UTF-8 bytes', () => {
    expect(murmur2('héllo')).toBe(murmur2(Buffer.from('héllo', 'utf8')));
  });

  it("keeps a record's own partition", () => {
    expect(ours(args('key', 6, 4))).toBe(4);
  });

  it('spreads keyless records round robin over partitions with a leader', () => {
    const seen = Array.from({ length: 12 }, () => ours({ topic: 'keyless', partitionMetadata: partitions(4, [1]), message: { value: 'v' } }));
    expect(new Set(seen)).toEqual(new Set([0, 2, 3]));
    for (let i = 3; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 3]);
  });
});
