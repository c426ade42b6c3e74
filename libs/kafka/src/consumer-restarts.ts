import type { Consumer } from 'kafkajs';

/**
 * Default session of the services' consumer groups (inbox consumers and RPC servers;
 * KAFKA_SESSION_TIMEOUT_MS overrides it). Below Kafka's default broker minimum
 * (group.min.session.timeout.ms, 6 s), which the platform's brokers lower:
 * docs/adr/0155-kafka-client-configuration-and-recovery.md.
 */
export const GROUP_SESSION_TIMEOUT_MS = 3_000;

/** A third of the session, as Kafka advises: two heartbeats may be late before the member is dropped. */
export function heartbeatIntervalFor(sessionTimeoutMs: number): number {
  return Math.max(250, Math.floor(sessionTimeoutMs / 3));
}

/** The session and heartbeat every platform consumer group uses (`sessionTimeoutMs` defaults to GROUP_SESSION_TIMEOUT_MS). */
export function groupSession(sessionTimeoutMs = GROUP_SESSION_TIMEOUT_MS): { sessionTimeout: number; heartbeatInterval: number } {
  return { sessionTimeout: sessionTimeoutMs, heartbeatInterval: heartbeatIntervalFor(sessionTimeoutMs) };
}

/**
 * Waits before the n-th rebuild of a crashed consumer: 1 s, then 2 s. Short, because a consumer asleep
 * here when the broker returns is a service that cannot serve yet; kafkajs's own retries (about 6 s,
 * kafkaClientConfig) already space out the rebuilds of one that keeps failing.
 */
export function waitBeforeRestart(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, restartDelayMs(attempt)));
}

export function restartDelayMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 2_000);
}

/** Calls `onChange(false)` when the consumer leaves its group (crash, stop, lost connection) and `onChange(true)` at each join. */
export function trackMembership(consumer: Consumer, onChange: (member: boolean) => void): void {
  consumer.on(consumer.events.GROUP_JOIN, () => onChange(true));
  for (const left of [consumer.events.CRASH, consumer.events.STOP, consumer.events.DISCONNECT]) consumer.on(left, () => onChange(false));
}

/**
 * kafkajs restarts a crashed consumer only after errors it deems retriable; after any other (a
 * group coordinator not found while a fresh broker loads, for one) the consumer stays dead and its
 * partitions unread. `restart` is then called to build a new one.
 */
export function restartWhenCrashed(consumer: Consumer, restart: () => Promise<void>, onCrash: (error: unknown) => void): void {
  consumer.on(consumer.events.CRASH, (event) => {
    const { error, restart: restartsItself } = event.payload as { error: Error; restart: boolean };
    if (restartsItself) return;
    onCrash(error);
    void restart();
  });
}
