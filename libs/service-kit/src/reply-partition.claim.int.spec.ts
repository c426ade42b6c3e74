import { randomBytes } from 'node:crypto';
import { claimReplyPartition, type ReplyPartitionClaim } from './reply-partition.claim';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform_test';

/** Reply partitions claimed by RPC clients (gateway replicas, consoles) over a real Postgres (session advisory locks). */
describe('claimReplyPartition (real Postgres)', () => {
  const namespace = process.env.KAFKA_NAMESPACE;
  const claims: ReplyPartitionClaim[] = [];
  beforeEach(() => {
    // Each test claims in a lock space of its own.
    process.env.KAFKA_NAMESPACE = `claims-${randomBytes(4).toString('hex')}.`;
  });
  afterEach(async () => {
    await Promise.all(claims.splice(0).map((claim) => claim.release()));
    if (namespace === undefined) delete process.env.KAFKA_NAMESPACE;
    else process.env.KAFKA_NAMESPACE = namespace;
  });
  const claim = async (instanceId: string, partitions = 3) => {
    const claimed = await claimReplyPartition({ databaseUrl: DATABASE_URL, instanceId, partitions });
    claims.push(claimed);
    return claimed;
  };

  it('gives live replicas distinct partitions, and one shared by hash once every partition is held', async () => {
    const first = await claim('replica-a');
    const second = await claim('replica-b');
    const third = await claim('replica-c');
    expect([first, second, third].map(({ partition, exclusive }) => ({ partition, exclusive }))).toEqual([
      { partition: 0, exclusive: true },
      { partition: 1, exclusive: true },
      { partition: 2, exclusive: true },
    ]);
    const fourth = await claim('replica-d');
    expect(fourth.exclusive).toBe(false);
    expect(fourth.partition).toBeGreaterThanOrEqual(0);
    expect(fourth.partition).toBeLessThan(3);
    expect((await claim('replica-d')).partition).toBe(fourth.partition);
  });

  it('hands a released partition (a replica gone) to the next replica', async () => {
    await claim('replica-a');
    const second = await claim('replica-b');
    await second.release();
    expect((await claim('replica-c')).partition).toBe(1);
  });
});
