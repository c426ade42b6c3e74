/**
 * Integration/e2e setup: real infrastructure (started when missing), a fresh test database, and the
 * apps from dist/ on the test ports with CLOCK_MODE=test. Tests read the URLs from the env.
 */
const path = require('node:path');

module.exports = async () => {
  const root = path.resolve(__dirname, '../..');
  // Tests use kafkajs in this process too; silence its one harmless Node 24 warning here as the apps do.
  require(path.join(root, 'dist/libs/kafka/src/kafka-client.js')).silenceKafkaJsTimeoutNegativeWarning();
  const infra = await import(path.join(root, 'tools/infra/infra.mjs'));
  const stack = await import(path.join(root, 'tools/dev/stack.mjs'));
  const { resetDatabase, TEST_ENV, TEST_BASE_PORT, TEST_CERTS_DIR, TEST_LOG_DIR } = await import(path.join(root, 'tools/test/test-env.mjs'));
  // The local CA the dispatcher trusts (WEBHOOK_CA_FILE) must exist before the stack starts.
  TEST_ENV.WEBHOOK_CA_FILE = require(path.join(root, 'dist/libs/testing/src/test-certificates.js')).testCertificates(TEST_CERTS_DIR).caFile;
  await infra.ensureInfra({ quiet: true });
  // The console's browser tests drive Debian's chromium (installed here when missing).
  const { ensureChromium } = await import(path.join(root, 'tools/test/chromium.mjs'));
  process.env.CHROMIUM_PATH = ensureChromium();
  await resetDatabase();
  // A namespace of its own per run (unless one is forced), so nothing replays earlier runs' events.
  const { freshKafkaNamespace } = await import(path.join(root, 'tools/infra/kafka-namespace.mjs'));
  if (!process.env.KAFKA_NAMESPACE) TEST_ENV.KAFKA_NAMESPACE = await freshKafkaNamespace(`${TEST_ENV.KAFKA_NAMESPACE.replace(/\.$/, '')}_`);
  // Every service of the stack exports its spans to a local collector that tests can query.
  const { OtlpReceiver } = require(path.join(root, 'dist/libs/testing/src/otlp-receiver.js'));
  const otlpPort = TEST_BASE_PORT + 96;
  globalThis.__TEST_OTLP__ = await OtlpReceiver.start(otlpPort);
  TEST_ENV.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${otlpPort}`;
  const started = Date.now();
  const start = () => stack.startStack({ basePort: TEST_BASE_PORT, env: TEST_ENV, tag: 'test', logDir: TEST_LOG_DIR });
  // A stack that does not get ready is started once more, after saying why the first did not: a
  // start that hangs now and then must still be seen, and one that always does still fails the run.
  const { children, ports } = await start().catch((error) => {
    process.stdout.write(`\nTHE TEST STACK DID NOT GET READY; starting it once more. Why:\n${error.message}\n`);
    return start();
  });
  process.stdout.write(`\nstack up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  globalThis.__TEST_STACK__ = children;
  // Replacements recorded by an earlier run that did not end cleanly name processes that are gone.
  const extraPids = path.join(root, '.data/run', `test-extra-pids-${TEST_BASE_PORT}.json`);
  for (const file of [extraPids, extraPids.replace(/\.json$/, '') + '-by-app.json']) require('node:fs').rmSync(file, { force: true });
  Object.assign(process.env, TEST_ENV, {
    TEST_PUBLIC_URL: `http://127.0.0.1:${ports.gateway}/platform/v1`,
    TEST_ADMIN_URL: `http://127.0.0.1:${ports.gateway + 1}/admin/v1`,
    TEST_ADMIN_TOKEN: TEST_ENV.ADMIN_TOKEN,
    TEST_BASE_PORT: String(TEST_BASE_PORT),
    TEST_OTLP_URL: `http://127.0.0.1:${otlpPort}`,
    TEST_CERTS_DIR,
    // Where the stack's apps and the replacements tests start write their logs.
    TEST_LOG_DIR,
    // Tests that replace a stack process (crash tests) list the replacement here; teardown stops it.
    TEST_EXTRA_PIDS_FILE: extraPids,
    TEST_STACK_PIDS: JSON.stringify(Object.fromEntries(Object.entries(children).map(([app, child]) => [app, child.pid]))),
  });
};
