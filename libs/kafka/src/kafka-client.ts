import { Kafka, logLevel, type ISocketFactory, type KafkaConfig, type LogEntry } from 'kafkajs';
import { kafkaLogLevel, type KafkaLineLevel } from './kafka-log-levels';
import type { KafkaSecurity } from './kafka-security';
import { stopKafkaJsIdleTimerLoop } from './request-queue-timer.patch';
import { growEncoderBuffersFromPool } from './encoder-buffers.patch';
import { skipEmptyFetchedPartitions } from './empty-fetch-batches.patch';
import { checksumRecordBatchesWithoutCopies } from './record-batch-crc.patch';
import { writeVarIntsInPlace } from './varint-encoder.patch';

let silenced = false;

/**
 * kafkajs 2.2.4 computes a negative setTimeout on Node >= 24, which then prints a harmless
 * TimeoutNegativeWarning. Drop exactly that warning and let every other one through.
 */
export function silenceKafkaJsTimeoutNegativeWarning(): void {
  if (silenced) return;
  silenced = true;
  const original = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
    const name = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : ((rest[0] as { type?: string } | undefined)?.type ?? '');
    if (name === 'TimeoutNegativeWarning') return;
    original(warning, ...rest);
  }) as typeof process.emitWarning;
}

export function parseBrokers(value: string | undefined): string[] {
  return (value ?? '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}

/** kafkajs log lines as one-line JSON on stderr, warnings and errors only, at the level they deserve (kafka-log-levels.ts). */
type KafkaLogSink = (level: KafkaLineLevel, msg: string, fields: Record<string, unknown>) => void;
let sink: KafkaLogSink = (level, msg, fields) => process.stderr.write(JSON.stringify({ level, msg, ...fields }) + '\n');

/** Sends kafkajs' warnings and errors to the service's logger (same JSON lines, time, service and context as the rest). */
export function setKafkaLogSink(next: KafkaLogSink): void {
  sink = next;
}

function kafkaLogCreator() {
  return ({ namespace, level, log }: LogEntry) => {
    if (level > logLevel.WARN) return;
    const { message, ...extra } = log;
    const meant = kafkaLogLevel({ level: level === logLevel.ERROR ? 'error' : 'warn', message: String(message), error: (extra as { error?: unknown }).error });
    if (meant) sink(meant, String(message), { source: `kafkajs.${namespace}`, ...extra });
  };
}

/**
 * What every kafkajs client of a process needs first: the idle timer loop stopped, its warning
 * dropped, the protocol encoding's per-record garbage cut (varints written in place, encoder
 * buffers from the shared pool, record batch checksums without copies), and fetched partitions
 * without records kept out of the consumers' worker queues.
 */
export function prepareKafkaJs(): void {
  silenceKafkaJsTimeoutNegativeWarning();
  stopKafkaJsIdleTimerLoop();
  writeVarIntsInPlace();
  growEncoderBuffersFromPool();
  checksumRecordBatchesWithoutCopies();
  skipEmptyFetchedPartitions();
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const defaultSocketFactory = (require('kafkajs/src/network/socketFactory') as () => ISocketFactory)();

/**
 * kafkajs' own socket factory, with Nagle's algorithm turned off on every broker connection, as
 * Kafka's Java client and node-postgres (our Postgres driver) do and Node's net sockets do not by
 * default. Requests here are small and several share a connection (produce requests while the last
 * is unanswered, a heartbeat or offset commit beside a fetch); with Nagle on, each such write may
 * wait for the acknowledgement of the one before. At 100 and 500 sends/s it made no difference
 * beyond the run-to-run noise, so this is about never waiting on an ACK timer
 * (docs/adr/0155-kafka-client-configuration-and-recovery.md).
 */
export const noDelaySocketFactory: ISocketFactory = (options) => {
  const socket = defaultSocketFactory(options);
  socket.setNoDelay(true);
  return socket;
};

/** The longest wait between two tries of a Kafka request or connection. */
export const RETRY_MAX_WAIT_MS = 1_000;

/**
 * What every kafkajs client of the platform is made with: the services' own (`createKafka`) and the
 * Nest clients of the RPC servers and of the gateway, which build their kafkajs client from these;
 * `security` is the process's TLS and SASL settings (kafkaSecurityFromEnv).
 */
export function kafkaClientConfig(clientId: string, brokers: string[], security: KafkaSecurity = {}): KafkaConfig {
  return {
    clientId,
    brokers,
    ...security,
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator,
    // At most a second between tries (kafkajs's default grows to 30 s): after a broker outage every
    // client is back within a second of the broker, not after the back-off it had reached meanwhile.
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: RETRY_MAX_WAIT_MS },
    socketFactory: noDelaySocketFactory,
  };
}

export function createKafka(clientId: string, brokers: string[], extra: Partial<KafkaConfig> = {}, security: KafkaSecurity = {}): Kafka {
  prepareKafkaJs();
  return new Kafka({ ...kafkaClientConfig(clientId, brokers, security), ...extra });
}
