import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { appUserIdFor, ID_PREFIX, newId, TOPICS, uuidv7, type DomainEvent, type MessageHandedOver } from '#platform/contracts';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client, loadS3Config } from '#platform/storage';
import { admin, createTestApp, createTestUser, eventually, expectStatus, queryDatabase, simAppAction, simSendText, type TestApp } from '#platform/testing';

/**
 * chat-sim's side of the handoff (D3/D4), driven by putting MessageHandedOver on
 * chat.outbound directly, as messaging will: delivered to the inbox, or refused and said so.
 * And what users send: text and media, published on chat.user-events with the bytes in S3.
 */
describe('chat-sim: handoff from chat.outbound, user messages to chat.user-events (e2e)', () => {
  const kafka = new Kafka({ clientId: 'handover-test', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
  let producer: Producer;
  let consumer: Consumer;
  const seen: DomainEvent[] = [];
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    consumer = kafka.consumer({ groupId: `handover-test-${Date.now()}` });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPICS.chatUserEvents], fromBeginning: false });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString())) });
    await joined;
  });
  afterAll(async () => {
    await consumer.disconnect();
    await producer.disconnect();
  });

  async function handOver(userId: string, text: string, eventId = uuidv7(Date.now()), messageId = newId(ID_PREFIX.message, Date.now())) {
    const event: DomainEvent<'MessageHandedOver', MessageHandedOver['data']> = {
      eventId,
      type: 'MessageHandedOver',
      schemaVersion: 1,
      occurredAt: new Date().toISOString(),
      appId: app.appId,
      correlationId: null,
      causationId: null,
      streamId: `message-${messageId}`,
      streamVersion: 2,
      data: { messageId, appId: app.appId, userId, appUserId: appUserIdFor('test-app-user-id-secret', app.appId, userId), type: 'text', text, media: [] },
    };
    await producer.send({ topic: TOPICS.chatOutbound, messages: [{ key: userId, value: JSON.stringify(event) }] });
    return messageId;
  }
  const inbox = async (userId: string) => expectStatus(await admin('GET', `/sim/users/${userId}/inbox?appId=${app.appId}`), 200).body.data;
  const refusalOf = (messageId: string) => seen.find((e) => e.type === 'MessageDeliveryRefused' && (e.data as { messageId: string }).messageId === messageId);

  it('delivers to the inbox of a user who let the app in, once even when handed over twice', async () => {
    const user = await createTestUser(app.orgId);
    await simSendText(user.id, app.appId);
    const eventId = uuidv7(Date.now());
    const messageId = await handOver(user.id, 'Your order shipped', eventId);
    await handOver(user.id, 'Your order shipped', eventId, messageId);
    await handOver(user.id, 'Your order shipped', uuidv7(Date.now()), messageId);
    const messages = await eventually(async () => {
      const data = await inbox(user.id);
      return data.length > 0 ? data : null;
    });
    expect(messages).toEqual([{ messageId, type: 'text', text: 'Your order shipped', media: [], receivedAt: expect.any(String) }]);
    // Receipts are for messages in the user's inbox only.
    expectStatus(await admin('POST', `/sim/users/${user.id}/receipts`, { messageId, status: 'read' }), 200);
    const missing = await admin('POST', `/sim/users/${user.id}/receipts`, { messageId: 'msg_unknown', status: 'read' });
    expect(missing.status).toBe(404);
    expect(await inbox(user.id)).toHaveLength(1);
  });

  it('refuses after the user stopped the app (consent_revoked) and after the account was deactivated (recipient_unavailable)', async () => {
    const stopper = await createTestUser(app.orgId);
    await simSendText(stopper.id, app.appId);
    expectStatus(await simAppAction(stopper.id, app.appId, 'stop'), 200);
    const stoppedMessage = await handOver(stopper.id, 'after stop');

    const leaver = await createTestUser(app.orgId);
    await simSendText(leaver.id, app.appId);
    expectStatus(await admin('PATCH', `/users/${leaver.id}`, { status: 'deactivated' }), 200);
    const leaverMessage = await handOver(leaver.id, 'after deactivation');

    const stopped = (await eventually(async () => refusalOf(stoppedMessage))) as DomainEvent;
    expect(stopped.data).toEqual({ userId: stopper.id, appId: app.appId, messageId: stoppedMessage, reason: 'consent_revoked' });
    expect(stopped.appId).toBe(app.appId);
    const gone = (await eventually(async () => refusalOf(leaverMessage))) as DomainEvent;
    expect((gone.data as { reason: string }).reason).toBe('recipient_unavailable');
    expect(await inbox(stopper.id)).toEqual([]);
    expect(await inbox(leaver.id)).toEqual([]);
  });

  it('refuses a message once however many copies of its handover come, and keeps no inbox row for them', async () => {
    const stopper = await createTestUser(app.orgId);
    await simSendText(stopper.id, app.appId);
    expectStatus(await simAppAction(stopper.id, app.appId, 'stop'), 200);
    const eventId = uuidv7(Date.now());
    const messageId = await handOver(stopper.id, 'after stop', eventId);
    // A duplicate on the topic (the same event), then a redrive (a new event id for the same message).
    await handOver(stopper.id, 'after stop', eventId, messageId);
    const redrive = uuidv7(Date.now());
    await handOver(stopper.id, 'after stop', redrive, messageId);
    // The same key, so the same partition: once this one is refused, every copy before it was applied.
    const marker = await handOver(stopper.id, 'marker');
    await eventually(async () => refusalOf(marker));
    const refusals = seen.filter((e) => e.type === 'MessageDeliveryRefused' && (e.data as { messageId: string }).messageId === messageId);
    expect(refusals).toHaveLength(1);
    // The effect is its own inbox (ADR 0226): no inbox row per handover.
    expect(await queryDatabase(`select event_id from chat_sim.inbox where event_id = any($1::text[])`, [[eventId, redrive]])).toEqual([]);
  });

  it('delivers again once the user allows the app after a stop', async () => {
    const user = await createTestUser(app.orgId);
    await simSendText(user.id, app.appId);
    expectStatus(await simAppAction(user.id, app.appId, 'stop'), 200);
    expectStatus(await simAppAction(user.id, app.appId, 'allow'), 200);
    const messageId = await handOver(user.id, 'welcome back');
    await eventually(async () => (await inbox(user.id)).some((m: { messageId: string }) => m.messageId === messageId));
    expect(refusalOf(messageId)).toBeUndefined();
  });

  it('a user message with media stores the exact bytes in the bucket and publishes their keys', async () => {
    const user = await createTestUser(app.orgId);
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d8a4b60000000049454e44ae426082',
      'hex',
    );
    const pdf = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
    const sent = expectStatus(
      await admin('POST', `/sim/users/${user.id}/messages`, {
        appId: app.appId,
        type: 'image',
        text: 'the receipt',
        media: [
          { fileName: 'pixel.png', mimeType: 'image/png', base64: png.toString('base64') },
          { fileName: 'receipt.pdf', mimeType: 'application/pdf', base64: pdf.toString('base64') },
        ],
      }),
      201,
    ).body;
    const event = (await eventually(async () =>
      seen.find((e) => e.type === 'UserSentMessage' && (e.data as { messageId: string }).messageId === sent.id),
    )) as DomainEvent;
    const data = event.data as { type: string; text: string; media: { objectKey: string; fileName: string; mimeType: string; size: number }[] };
    expect(data).toMatchObject({ type: 'image', text: 'the receipt' });
    expect(data.media.map(({ fileName, mimeType, size }) => ({ fileName, mimeType, size }))).toEqual([
      { fileName: 'pixel.png', mimeType: 'image/png', size: png.length },
      { fileName: 'receipt.pdf', mimeType: 'application/pdf', size: pdf.length },
    ]);
    const config = loadS3Config(process.env);
    const s3 = createS3Client(config);
    for (const [i, bytes] of [png, pdf].entries()) {
      const object = await s3.send(new GetObjectCommand({ Bucket: config.bucket, Key: data.media[i].objectKey }));
      expect(Buffer.from(await object.Body!.transformToByteArray()).equals(bytes)).toBe(true);
      expect(object.ContentType).toBe(data.media[i].mimeType);
    }
  });

  it('refuses media that is not base64', async () => {
    const user = await createTestUser(app.orgId);
    const res = await admin('POST', `/sim/users/${user.id}/messages`, {
      appId: app.appId,
      type: 'file',
      media: [{ fileName: 'x', mimeType: 'text/plain', base64: '***' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'media.0.base64', issue: expect.any(String) }]);
  });
});
