import { Client } from 'pg';
import { kafkaNamespace } from '#platform/contracts';
import { murmur2 } from '#platform/kafka';

export interface ReplyPartitionClaim {
  /** The reply partition this client reads and has its replies sent to. */
  partition: number;
  /** True while this client holds the partition alone; false when every partition was held and it shares one. */
  exclusive: boolean;
  /** Gives the partition back (at shutdown). */
  release(): Promise<void>;
}

/**
 * Claims a reply partition for an RPC client, a gateway replica or a console (ADR 0203): the
 * lowest of `partitions` that no live client holds, with a session-level advisory lock on a
 * connection kept for the client's life, so a client that dies gives its partition back with its
 * connection. With every partition held, the client shares the one its instance id hashes to, and
 * holds no lock. Gateways and consoles claim in one lock space (named as when only gateways
 * claimed, so older gateways and newer consoles never take the same partition): a client that read
 * another's partition would fetch and decode every reply meant for the other.
 *
 * Only the spread of the replies depends on the claim, never their delivery: a replica reads its
 * partition and keeps the replies it waits for, so two replicas on one partition (a lost
 * connection let another replica claim it) are each still answered.
 */
export async function claimReplyPartition(options: {
  databaseUrl: string;
  instanceId: string;
  partitions: number;
  onError?: (error: unknown) => void;
}): Promise<ReplyPartitionClaim> {
  const client = new Client({ connectionString: options.databaseUrl, application_name: 'rpc-reply-partition' });
  // A dropped connection releases the lock; this replica keeps reading its partition (see above).
  client.on('error', (error) => options.onError?.(error));
  await client.connect();
  const lockSpace = `${kafkaNamespace()}gateway.reply-partition`;
  // One partition at a time: a single statement filtering on the lock call could take several.
  let claimed: number | null = null;
  for (let p = 0; p < options.partitions && claimed === null; p++) {
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1), $2) as locked', [lockSpace, p]);
    if (rows[0]?.locked) claimed = p;
  }
  if (claimed === null) {
    await client.end();
    const shared = (murmur2(options.instanceId) & 0x7fffffff) % options.partitions;
    return { partition: shared, exclusive: false, release: async () => undefined };
  }
  return { partition: claimed, exclusive: true, release: () => client.end().catch(() => undefined) };
}
