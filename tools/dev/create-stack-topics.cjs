/**
 * Creates every topic of the platform in the stack's namespace (KAFKA_NAMESPACE, KAFKA_BROKERS and the
 * KAFKA_SSL_/KAFKA_SASL_ settings from the environment) and waits until each partition has a leader.
 * A dev or test stack runs it before its apps start, as Strimzi's KafkaTopic resources do in
 * production: each app creates only the topics it uses, and apps starting side by side would otherwise
 * race to create shared topics and subscribe to ones whose partitions are not hosted yet.
 */
const path = require('node:path');

const dist = path.resolve(__dirname, '../../dist/libs');
const { allTopicSpecs } = require(path.join(dist, 'contracts/src/index.js'));
const { createKafka, ensureTopics, kafkaSecurityFromEnv, parseBrokers, silenceKafkaJsTimeoutNegativeWarning } = require(path.join(dist, 'kafka/src/index.js'));

async function main() {
  silenceKafkaJsTimeoutNegativeWarning();
  const kafka = createKafka(
    'stack-topics',
    parseBrokers(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092'),
    { logLevel: 0 },
    kafkaSecurityFromEnv(process.env, { production: false }),
  );
  await ensureTopics(kafka, allTopicSpecs());
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`creating the stack's topics failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
