/**
 * What a kafkajs log line means to an operator, as a level. kafkajs logs at ERROR every protocol
 * error a broker answers and every lost connection, and most of those are moments it recovers from
 * by itself: a consumer joining or leaving its group (a rebalance), a coordinator that moved or is
 * still loading, a broker restarting. Logged as errors they page whoever alerts on error lines at
 * every deploy, and the real errors drown. So:
 * - a rebalance's moments (rejoin needed, member unknown, generation stale, coordinator loading,
 *   moved or not yet found) are `info`;
 * - other errors a retry recovers from (kafkajs' retriable protocol errors, lost or refused
 *   connections, a consumer kafkajs restarts) are `warn`;
 * - a CreateTopics answer's errors are `info`: the caller judges them (a race between replicas, or a
 *   failed start it logs itself);
 * - everything else keeps kafkajs' own level: `error` is something to look at.
 * Dropped altogether: the lines kafkajs repeats for every partition while a leader moves.
 */
// kafkajs' table of Kafka's error codes, with the messages it puts in its errors and logs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { errorCodes } = require('kafkajs/src/protocol/error') as { errorCodes: { type: string; retriable: boolean; message: string }[] };

export type KafkaLineLevel = 'error' | 'warn' | 'info';

/** The error codes of a group's membership changing hands: a consumer joining, leaving, or its coordinator moving. */
const REBALANCE_MOMENTS = new Set([
  'REBALANCE_IN_PROGRESS',
  'UNKNOWN_MEMBER_ID',
  'ILLEGAL_GENERATION',
  'MEMBER_ID_REQUIRED',
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
]);
const REBALANCE_MESSAGES = errorCodes.filter((e) => REBALANCE_MOMENTS.has(e.type)).map((e) => e.message);
const RETRIABLE_MESSAGES = errorCodes.filter((e) => e.retriable && !REBALANCE_MOMENTS.has(e.type)).map((e) => e.message);
/** kafkajs' own errors for a group coordinator it could not find yet, which it raises while a fresh broker loads. */
const COORDINATOR_NOT_FOUND = /Failed to find group coordinator|KafkaJSGroupCoordinatorNotFound/;
/** A connection refused, reset or timed out, no broker up, and kafkajs' lines about trying the next broker or restarting a consumer. */
const RECONNECTING =
  /Connection error|Connection timeout|Connection closed|KafkaJSConnection|ECONNREFUSED|ECONNRESET|No broker available|KafkaJSNoBrokerAvailableError|KafkaJSBrokerNotFound|Failed to connect to seed broker|Restarting the consumer in|KafkaJSNumberOfRetriesExceeded|KafkaJSRequestTimeoutError|Request .* timed out/;
/**
 * A CreateTopics answer with errors: replicas starting together create the same topics, and the
 * caller (ensureTopics) passes over "already exists" and fails the start on anything else, which it logs.
 */
const TOPIC_CREATION = /^Response CreateTopics/;
/** Leadership moves right after a topic is created or a broker returns; kafkajs retries them by itself. */
const LEADER_MOVING = /not the leader for that topic-partition|There is no leader for this topic-partition/;
const ROUTINE_WARNINGS = /The group is rebalancing|There is no leader for this topic-partition|Limiting retries for the idempotent producer/;

/** The level for a kafkajs line (kafkajs' own level, its message and the error it carries); null: not worth a line. */
export function kafkaLogLevel(line: { level: 'error' | 'warn'; message: string; error?: unknown }): KafkaLineLevel | null {
  const error = line.error === undefined ? '' : String(line.error);
  if (line.level === 'warn' && ROUTINE_WARNINGS.test(line.message)) return null;
  if (LEADER_MOVING.test(error)) return null;
  const text = `${line.message} ${error}`;
  if (TOPIC_CREATION.test(line.message)) return 'info';
  if (REBALANCE_MESSAGES.some((message) => text.includes(message)) || COORDINATOR_NOT_FOUND.test(text)) return 'info';
  if (RETRIABLE_MESSAGES.some((message) => text.includes(message)) || RECONNECTING.test(text)) return 'warn';
  return line.level;
}

/**
 * Whether a consumer's crash came from a moment the platform recovers from by building the consumer
 * again (the broker gone or restarting, a coordinator not found yet, a rebalance): a warning while
 * it lasts, not an error.
 */
export function isTransientKafkaError(error: unknown): boolean {
  const level = kafkaLogLevel({ level: 'error', message: errorText(error) });
  return level === 'info' || level === 'warn' || (error as { retriable?: unknown })?.retriable === true;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
