/**
 * The floor of accepting a message durably, as its own process (like a service): node:http, the JSON
 * body parsed, one kafkajs produce with acks=all to a 6-partition topic keyed by the recipient, 202.
 * No auth, no database, no decision: what any platform must do at least. Plain kafkajs, as published.
 * Usage (by floor.bench.mjs): node tools/bench/floor-server.mjs <port> <topic> <brokers>
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Kafka, logLevel } from 'kafkajs';

const [port, topic, brokers] = process.argv.slice(2);
const producer = new Kafka({ clientId: 'bench-floor', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).producer({ allowAutoTopicCreation: false });
await producer.connect();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = randomUUID();
      await producer.send({ topic, acks: -1, messages: [{ key: String(body?.to?.appUserId ?? id), value: JSON.stringify({ id, ...body }) }] });
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id, status: 'accepted' }));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error?.message ?? error) }));
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', async () => {
  server.close();
  await producer.disconnect();
  process.exit(0);
});
