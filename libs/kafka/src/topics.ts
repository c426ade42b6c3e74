import type { Kafka } from 'kafkajs';
import type { TopicSpec } from '#platform/contracts';

/** Creates the topics that do not exist yet; existing topics are left as they are. Safe to run from every replica. */
export async function ensureTopics(kafka: Kafka, specs: TopicSpec[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    if (missing.length === 0) return;
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.name,
          numPartitions: s.partitions,
          replicationFactor: -1,
          configEntries: Object.entries(s.config).map(([name, value]) => ({ name, value })),
        })),
      });
    } catch (error) {
      // Another replica created them between our list and our create.
      if (!String((error as Error).message).includes('already exists')) throw error;
    }
  } finally {
    await admin.disconnect();
  }
}
