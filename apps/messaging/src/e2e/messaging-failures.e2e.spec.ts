import { randomBytes, randomUUID } from 'node:crypto';
import type { DomainError } from '#platform/errors';
import { RPC_SERVICES, type SendMessageCall } from '#platform/contracts';
import { RpcClient } from '#platform/kafka';
import {
  api,
  createTestApp,
  createTestUser,
  eventually,
  expectStatus,
  simSendText,
  spawnApp,
  stackPid,
  unique,
  waitForExit,
  waitReady,
  admin,
  simAppAction,
  appWithTester,
  sendMessage,
  simInbox,
} from '#platform/testing';

describe('messaging when things go wrong (e2e)', () => {
  it('a message sent after the user stopped the app, before messaging knew, never reaches the inbox and ends failed', async () => {
    // Call chat-sim directly, as the chat product would act, without waiting for the platform to catch up.
    const rpc = new RpcClient({
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      instanceId: `test-${randomBytes(4).toString('hex')}`,
      services: RPC_SERVICES,
      timeoutMs: 8000,
    });
    await rpc.connect();
    try {
      const app = await createTestApp();
      let raced: { id: string; userId: string } | null = null;
      for (let attempt = 0; attempt < 5 && !raced; attempt++) {
        const user = await createTestUser(app.orgId);
        expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
        const { appUserId } = expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200).body;
        await rpc.call('chat-sim', 'sim.appAction', { requestId: unique('req_') }, { userId: user.id, appId: app.appId, action: 'stop' });
        const res = await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'too late' });
        // Messaging had already learned of the stop: try again with another user.
        if (res.status === 202) raced = { id: res.body.id, userId: user.id };
        else expect(res.body.error.code).toBe('consent_required');
      }
      expect(raced).not.toBeNull();
      const { id, userId } = raced!;
      await eventually(async () => (await api('GET', `/messages/${id}`, app.sandboxKey)).body.status === 'failed');
      expect(await simInbox(userId, app.appId)).toEqual([]);
    } finally {
      await rpc.close();
    }
  });

  it('a send request that reaches messaging again (its offset was not committed before a crash) answers the same message and sends nothing twice', async () => {
    // Messaging commits request offsets once a second (rpcOpsSafeToRerun): after a crash or a
    // rebalance, a server may run the last second's requests again, also beside the first run.
    const rpc = new RpcClient({
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      instanceId: `test-${randomBytes(4).toString('hex')}`,
      services: RPC_SERVICES,
      timeoutMs: 8000,
    });
    await rpc.connect();
    try {
      const { app, userId, appUserId } = await appWithTester();
      const request: SendMessageCall = {
        appId: app.appId,
        keyEnvironment: 'sandbox',
        idempotencyKey: unique('idem-'),
        bodyHash: randomBytes(32).toString('hex'),
        body: { to: { appUserId }, type: 'text', text: 'once only', mediaId: null, clientReference: null },
      };
      const send = (body = request, requestId = unique('req_')) => rpc.call('messaging', 'messages.send', { requestId, appId: app.appId }, body);
      // A redelivered request is the same request (its request id too), here arriving beside its first run; then a later retry.
      const redelivered = unique('req_');
      const runs = [...(await Promise.all([send(request, redelivered), send(request, redelivered)])), await send()];
      const id = runs[0].acceptance.id;
      for (const run of runs) expect(run.acceptance.id).toBe(id);
      expect(runs.filter((run) => !run.replayed)).toHaveLength(1);
      // Handoffs to one user keep their order (chat.outbound is keyed by user): once a later message
      // is in the inbox, any second copy of the first would be there too.
      const marker = (await send({ ...request, idempotencyKey: unique('idem-'), body: { ...request.body, text: 'marker' } })).acceptance.id;
      const inbox = await eventually(async () => {
        const entries = await simInbox(userId, app.appId);
        return entries.some((entry) => entry.messageId === marker) ? entries : null;
      });
      expect(inbox.map((entry) => entry.messageId)).toEqual([id, marker]);
      expect(expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200).body.status).toBe('sent');
    } finally {
      await rpc.close();
    }
  });

  it('a media send whose media events messaging never applies is refused 500 internal_error before the caller times out, and holds no key', async () => {
    const rpc = new RpcClient({
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      instanceId: `test-${randomBytes(4).toString('hex')}`,
      services: RPC_SERVICES,
      timeoutMs: 15_000,
    });
    await rpc.connect();
    try {
      const { app, appUserId } = await appWithTester();
      const request: SendMessageCall = {
        appId: app.appId,
        keyEnvironment: 'sandbox',
        idempotencyKey: unique('idem-'),
        bodyHash: randomBytes(32).toString('hex'),
        body: { to: { appUserId }, type: 'image', text: null, mediaId: 'med_never_published', clientReference: null },
        // An event of a type messaging's media consumer applies, which no one ever publishes.
        mediaEvents: [{ eventId: randomUUID(), type: 'MediaUploadVerified' }],
      };
      const caller = { requestId: unique('req_'), appId: app.appId };
      const started = Date.now();
      const refused = await rpc.call('messaging', 'messages.send', caller, request).then(
        () => null,
        (error: unknown) => error as DomainError,
      );
      // As events.awaitApplied answered: the service's own refusal after a second under its RPC_TIMEOUT_MS (8 s in the test
      // stack, tools/test/test-env.mjs), so a gateway with that timeout gets this answer, not a timeout of its own.
      expect(refused).toMatchObject({ code: 'internal_error', message: expect.stringContaining('messaging has not applied it yet') });
      expect(Date.now() - started).toBeGreaterThanOrEqual(7000);
      expect(Date.now() - started).toBeLessThan(8000);
      // Nothing was decided, so the key is free.
      expect(await rpc.call('messaging', 'messages.heldKey', caller, request)).toEqual({ held: null });
    } finally {
      await rpc.close();
    }
  });

  it('killing messaging while sends are in flight loses nothing: every 202 has its message, its sent status and one inbox entry', async () => {
    const testers = await Promise.all(Array.from({ length: 3 }, () => appWithTester()));
    // Open the windows, so the business-initiated cap stays out of the way.
    for (const t of testers) await simSendText(t.userId, t.app.appId);
    const sends = Array.from({ length: 90 }, (_, i) => ({ tester: testers[i % testers.length], key: unique(`crash-${i}-`), text: `crash ${i}` }));

    const port = Number(process.env.TEST_BASE_PORT ?? 4000) + 10;
    const pid = stackPid('messaging');
    // Some sends answered before the kill, some in flight during it and some after it: the kill waits
    // for a first acceptance (a loaded machine may answer none of the first thirty within their 240 ms),
    // and the sends after the thirtieth wait for the kill.
    let acceptedOnce = (): void => undefined;
    const firstAccepted = new Promise<void>((resolve) => (acceptedOnce = resolve));
    let killedNow = (): void => undefined;
    const killed = new Promise<void>((resolve) => (killedNow = resolve));
    const results = await Promise.all(
      sends.map(async (s, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 8));
        if (i === 30) {
          await firstAccepted;
          process.kill(pid, 'SIGKILL');
          killedNow();
        } else if (i > 30) await killed;
        const result = await sendMessage(s.tester.app.sandboxKey, { to: { appUserId: s.tester.appUserId }, type: 'text', text: s.text }, s.key);
        if (result.status === 202) acceptedOnce();
        return result;
      }),
    );
    await waitForExit(pid);
    const replacement = spawnApp('messaging', port, { logName: 'test-messaging-after-crash', replaces: true });
    await waitReady(`http://127.0.0.1:${port}/readyz`, replacement);

    const accepted = results.map((r, i) => ({ r, s: sends[i] })).filter(({ r }) => r.status === 202);
    const failed = results.map((r, i) => ({ r, s: sends[i] })).filter(({ r }) => r.status !== 202);
    expect(accepted.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    for (const { r } of failed) expect(r.body.error.code).toBe('internal_error');

    // Every 202 has its message, sent, in the user's inbox.
    for (const { r, s } of accepted) {
      const message = expectStatus(await api('GET', `/messages/${r.body.id}`, s.tester.app.sandboxKey), 200).body;
      expect(message).toMatchObject({ status: 'sent', text: s.text });
    }
    // The 500s are retried with their keys, as the spec tells clients to: each ends with one message.
    const retried = await Promise.all(
      failed.map(({ s }) => sendMessage(s.tester.app.sandboxKey, { to: { appUserId: s.tester.appUserId }, type: 'text', text: s.text }, s.key)),
    );
    for (const r of retried) expectStatus(r, 202);

    const all = [...accepted.map(({ r, s }) => ({ id: r.body.id as string, s })), ...retried.map((r, i) => ({ id: r.body.id as string, s: failed[i].s }))];
    for (const t of testers) {
      const expected = all.filter(({ s }) => s.tester === t);
      const entries = (await eventually(async () => {
        const data = await simInbox(t.userId, t.app.appId);
        return expected.every(({ id }) => data.some((m) => m.messageId === id)) ? data : null;
      }, 30_000))!;
      expect(entries).toHaveLength(expected.length);
      expect(new Set(entries.map((m) => m.messageId)).size).toBe(expected.length);
    }
  }, 120_000);
});
