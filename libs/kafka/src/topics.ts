import type { Admin, Kafka } from 'kafkajs';
import type { TopicSpec } from '#platform/contracts';

/** How long ensureTopics waits for the partitions of topics another process created a moment ago to get leaders. */
const LEADERS_TIMEOUT_MS = 30_000;

/**
 * Creates the topics that do not exist yet; existing topics are left as they are. Safe to run from
 * every replica. Returns once every partition of every topic has a leader: a topic another service
 * created a moment before (each creates only its own topics) may have none yet, and a consumer
 * subscribing to it then would fail its start.
 */
export async function ensureTopics(kafka: Kafka, specs: TopicSpec[]): Promise<void> {
  if (specs.length === 0) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    if (missing.length > 0) {
      try {
        // Leaders are awaited below, where a topic the broker does not know yet is retried: kafkajs's own
        // wait gives up on it (seen with two stacks creating their topics at once).
        await admin.createTopics({
          waitForLeaders: false,
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
    }
    await waitForLeaders(
      admin,
      specs.map((s) => s.name),
    );
  } finally {
    await admin.disconnect();
  }
}

async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + LEADERS_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const metadata = await admin.fetchTopicMetadata({ topics });
      if (metadata.topics.every((topic) => topic.partitions.length > 0 && topic.partitions.every((p) => p.leader >= 0))) return;
    } catch (error) {
      // A topic so new the broker does not know it yet: retriable, like a partition without a leader.
      if ((error as { retriable?: boolean }).retriable !== true || Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error(`topics without a leader after ${LEADERS_TIMEOUT_MS} ms: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
  }
}
