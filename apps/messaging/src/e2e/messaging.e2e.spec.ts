import {
  admin,
  advanceClock,
  api,
  expectError,
  queryDatabase,
  createTestApp,
  createTestUser,
  eventually,
  expectStatus,
  http,
  platformNow,
  publicUrl,
  simAppAction,
  simSendText,
  unique,
  appWithTester,
  sendMessage,
  simInbox,
} from '#platform/testing';
import { Client } from 'pg';

describe('messaging through HTTP (e2e)', () => {
  describe('send and lifecycle', () => {
    it('accepts a text to an opted-in tester, hands it over (sent), then delivered and read from receipts', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const before = await platformNow();
      const res = expectStatus(
        await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'Your order shipped', clientReference: 'order-42' }),
        202,
      );
      expect(res.body).toEqual({
        id: expect.stringMatching(/^msg_/),
        status: 'accepted',
        appUserId,
        type: 'text',
        createdAt: expect.any(String),
        clientReference: 'order-42',
      });
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before.getTime());
      const id = res.body.id;

      const message = expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200).body;
      expect(message).toEqual({
        id,
        direction: 'outbound',
        appUserId,
        type: 'text',
        text: 'Your order shipped',
        media: [],
        status: 'sent',
        clientReference: 'order-42',
        createdAt: res.body.createdAt,
        deliveredAt: null,
        readAt: null,
        template: null,
      });

      const delivered = (await eventually(async () => (await simInbox(userId, app.appId)).find((m) => m.messageId === id)))!;
      expect(delivered.text).toBe('Your order shipped');
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'delivered' }), 200);
      const afterDelivery = expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200).body;
      expect(afterDelivery).toMatchObject({ status: 'delivered', deliveredAt: expect.any(String), readAt: null });
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'read' }), 200);
      expect(expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200).body).toMatchObject({
        status: 'read',
        deliveredAt: afterDelivery.deliveredAt,
        readAt: expect.any(String),
      });
    });

    it('a read receipt before the delivery one leaves the message read', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const id = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'hi' }), 202).body.id;
      await eventually(async () => (await simInbox(userId, app.appId)).some((m) => m.messageId === id));
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'read' }), 200);
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'delivered' }), 200);
      const message = expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200).body;
      expect(message.status).toBe('read');
      expect(message.deliveredAt).toBe(message.readAt);
    });

    it('a message not delivered within 30 days fails as expired (D4); a delivered one stays delivered', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const waiting = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'anyone there?' }), 202).body.id;
      const seen = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'got it?' }), 202).body.id;
      await eventually(async () => (await simInbox(userId, app.appId)).some((m) => m.messageId === seen));
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: seen, status: 'delivered' }), 200);

      await advanceClock(30 * 24 * 3600 + 60);
      await eventually(async () => (await api('GET', `/messages/${waiting}`, app.sandboxKey)).body.status === 'failed');
      const [failure] = await queryDatabase<{ reason: string }>(
        `select data->>'reason' as reason from messaging.events where stream_id = $1 and type = 'MessageFailed'`,
        [`message-${waiting}`],
      );
      expect(failure.reason).toBe('expired');
      expect((await api('GET', `/messages/${seen}`, app.sandboxKey)).body.status).toBe('delivered');
      // A receipt that comes after the deadline does not revive it.
      expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: waiting, status: 'delivered' }), 200);
      expect((await api('GET', `/messages/${waiting}`, app.sandboxKey)).body.status).toBe('failed');
    });

    it("a user's message is an inbound message with status received, and a reply carries its context", async () => {
      const { app, userId, appUserId } = await appWithTester();
      const outbound = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'How was it?' }), 202).body.id;
      const sent = expectStatus(
        await admin('POST', `/sim/users/${userId}/messages`, { appId: app.appId, type: 'text', text: 'Great!', replyTo: outbound }),
        201,
      ).body;
      expect(expectStatus(await api('GET', `/messages/${sent.id}`, app.sandboxKey), 200).body).toEqual({
        id: sent.id,
        direction: 'inbound',
        appUserId,
        type: 'text',
        text: 'Great!',
        media: [],
        status: 'received',
        clientReference: null,
        createdAt: expect.any(String),
        deliveredAt: null,
        readAt: null,
        template: null,
      });
    });

    it('a first message from a user opts them in and opens the window: replies are not business-initiated', async () => {
      const app = await createTestApp();
      const user = await createTestUser(app.orgId);
      expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
      expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200);
      const { appUserId } = await simSendText(user.id, app.appId);
      // Inside the window the cap does not apply.
      for (let i = 0; i < 5; i++) expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `reply ${i}` }), 202);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer with Idempotent-Replayed and sends nothing twice', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const key = unique('idem-');
      const body = { to: { appUserId }, type: 'text', text: 'once', clientReference: 'c1' };
      const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      // Same value, other key order: the same body.
      const again = expectStatus(await sendMessage(app.sandboxKey, { clientReference: 'c1', text: 'once', type: 'text', to: { appUserId } }, key), 202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      await eventually(async () => (await simInbox(userId, app.appId)).length === 1);
      expectError(await sendMessage(app.sandboxKey, { ...body, text: 'different' }, key), 422, 'idempotency_key_reused');
      // The key is looked up before the body is validated (architecture section 3, step 6 before 7).
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text' }, key), 422, 'idempotency_key_reused');
      expect((await simInbox(userId, app.appId)).filter((m) => m.text === 'once')).toHaveLength(1);
    });

    it('a key is kept 24 hours: then it sends anew, and the new message holds it', async () => {
      const { app, appUserId } = await appWithTester();
      const key = unique('idem-');
      const body = { to: { appUserId }, type: 'text', text: 'daily digest' };
      const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
      // The key is on the message it was accepted for (ADR 0227): no record of its own.
      const holders = async () =>
        (
          await queryDatabase<{ message_id: string }>(
            `select message_id from messaging.messages where app_id = $1 and idempotency_key = $2 order by created_at`,
            [app.appId, key],
          )
        ).map((row) => row.message_id);
      expect(await holders()).toEqual([first.body.id]);

      await advanceClock(23 * 3600);
      const replay = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);

      await advanceClock(3600 + 60);
      const nextDay = { ...body, text: 'the next day' };
      const anew = expectStatus(await sendMessage(app.sandboxKey, nextDay, key), 202);
      expect(anew.headers.get('idempotent-replayed')).toBeNull();
      expect(anew.body.id).not.toBe(first.body.id);
      // A repeat now replays the newest holder, and the first day's body is another body.
      const again = expectStatus(await sendMessage(app.sandboxKey, nextDay, key), 202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(anew.body);
      expectError(await sendMessage(app.sandboxKey, body, key), 422, 'idempotency_key_reused');
      expect(await holders()).toEqual([first.body.id, anew.body.id]);
    });

    it('an invalid body is 400 and does not keep its key', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId, 'hi');
      const key = unique('idem-');
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text' }, key), 400, 'invalid_request');
      const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'valid now' }, key), 202);
      expect(sent.headers.get('idempotent-replayed')).toBeNull();
      await eventually(async () => (await simInbox(userId, app.appId)).length === 1);
    });

    it('20 concurrent requests with one key make exactly one message', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const key = unique('idem-');
      const results = await Promise.all(
        Array.from({ length: 20 }, () => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'concurrent' }, key)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
      expect(statuses).toContain(202);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('idempotency_in_progress');
      const ids = new Set(results.filter((r) => r.status === 202).map((r) => r.body.id));
      expect(ids.size).toBe(1);
      const [id] = ids;
      await eventually(async () => (await simInbox(userId, app.appId)).some((m) => m.messageId === id));
      // Anything still in flight has landed by now: still exactly one.
      expectStatus(await api('GET', `/messages/${id}`, app.sandboxKey), 200);
      expect(await simInbox(userId, app.appId)).toHaveLength(1);
    });

    it('a twin of a running send is 409, with another or an invalid body 422; once answered, it replays', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId, 'hi'); // a reply window: no business-initiated cap
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'the day counter row exists now' }), 202);
      const body = { to: { appUserId }, type: 'text', text: 'held up' };
      const key = unique('idem-');
      // The app's D8 counter row, locked by a transaction of the test's own, holds the send's batch in progress.
      const lock = new Client({ connectionString: process.env.DATABASE_URL });
      await lock.connect();
      try {
        await lock.query('begin');
        await lock.query('select 1 from messaging.daily_counts where app_id = $1 for update', [app.appId]);
        const first = sendMessage(app.sandboxKey, body, key);
        await eventually(async () => {
          const [waiting] = await queryDatabase<{ n: number }>(`select count(*)::int as n from pg_stat_activity where $1 = any (pg_blocking_pids(pid))`, [
            (lock as unknown as { processID: number }).processID,
          ]);
          return waiting.n > 0;
        });
        expectError(await sendMessage(app.sandboxKey, body, key), 409, 'idempotency_in_progress');
        expectError(await sendMessage(app.sandboxKey, { ...body, text: 'another' }, key), 422, 'idempotency_key_reused');
        expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text' }, key), 422, 'idempotency_key_reused');
        await lock.query('rollback');
        const answered = expectStatus(await first, 202);
        const replay = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body).toEqual(answered.body);
      } finally {
        await lock.end();
      }
      await eventually(async () => (await simInbox(userId, app.appId)).filter((m) => m.text === 'held up').length === 1);
    });

    it('overlapping sends with keys of their own: each replay answers its own first answer', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId, 'hi'); // a reply window: no business-initiated cap
      // Each send is replayed as soon as it is answered, while the others still claim their keys:
      // completions, new claims and replays share the gateway's batches.
      const pairs = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const key = unique(`idem-${i}-`);
          const body = { to: { appUserId }, type: 'text', text: `overlap ${i}` };
          const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
          const replay = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
          return { first, replay };
        }),
      );
      for (const { first, replay } of pairs) {
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body).toEqual(first.body);
      }
      expect(new Set(pairs.map(({ first }) => first.body.id)).size).toBe(30);
      await eventually(async () => (await simInbox(userId, app.appId)).length === 30);
    });

    it('a missing key is 400 idempotency_key_required; a bad one 400 invalid_request', async () => {
      const { app, appUserId } = await appWithTester();
      const body = { to: { appUserId }, type: 'text', text: 'x' };
      expectError(await sendMessage(app.sandboxKey, body, null), 400, 'idempotency_key_required');
      expectError(await sendMessage(app.sandboxKey, body, 'k'.repeat(256)), 400, 'invalid_request');
    });

    it('a refused send does not keep its key: the same key works once the problem is fixed', async () => {
      const app = await createTestApp();
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      const key = unique('idem-');
      const body = { to: { appUserId }, type: 'text', text: 'retry me' };
      expectError(await sendMessage(app.sandboxKey, body, key), 403, 'recipient_not_tester');
      expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
      expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200);
      const ok = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
      expect(ok.headers.get('idempotent-replayed')).toBeNull();
    });

    it('keys are per app', async () => {
      const a = await appWithTester();
      const b = await appWithTester();
      const key = unique('idem-');
      const first = expectStatus(await sendMessage(a.app.sandboxKey, { to: { appUserId: a.appUserId }, type: 'text', text: 'x' }, key), 202);
      const second = expectStatus(await sendMessage(b.app.sandboxKey, { to: { appUserId: b.appUserId }, type: 'text', text: 'x' }, key), 202);
      expect(second.body.id).not.toBe(first.body.id);
    });
  });

  describe('validation (400 invalid_request with details)', () => {
    const appUserId = 'u_AAAAAAAAAAAAAAAAAAAAAA';
    it.each([
      ['no to', { type: 'text', text: 'x' }, ['to']],
      ['empty to', { to: {}, type: 'text', text: 'x' }, ['to']],
      ['both to shapes', { to: { appUserId, email: 'a@b.example' }, type: 'text', text: 'x' }, ['to']],
      ['bad appUserId', { to: { appUserId: 'nope' }, type: 'text', text: 'x' }, ['to.appUserId']],
      ['bad email', { to: { email: 'not-an-email' }, type: 'text', text: 'x' }, ['to.email']],
      ['email over 254', { to: { email: `${'a'.repeat(250)}@b.example` }, type: 'text', text: 'x' }, ['to.email']],
      ['unknown property in to', { to: { appUserId, other: 1 }, type: 'text', text: 'x' }, ['to.other']],
      ['unknown type', { to: { appUserId }, type: 'sticker', text: 'x' }, ['type']],
      ['text missing', { to: { appUserId }, type: 'text' }, ['text']],
      ['empty text', { to: { appUserId }, type: 'text', text: '' }, ['text']],
      ['text over 4096', { to: { appUserId }, type: 'text', text: 'x'.repeat(4097) }, ['text']],
      ['media type without mediaId', { to: { appUserId }, type: 'image' }, ['mediaId']],
      ['mediaId over 64', { to: { appUserId }, type: 'image', mediaId: 'm'.repeat(65) }, ['mediaId']],
      ['mediaId on a text', { to: { appUserId }, type: 'text', text: 'x', mediaId: 'med_1' }, ['mediaId']],
      ['empty clientReference', { to: { appUserId }, type: 'text', text: 'x', clientReference: '' }, ['clientReference']],
      ['clientReference over 128', { to: { appUserId }, type: 'text', text: 'x', clientReference: 'c'.repeat(129) }, ['clientReference']],
      ['unknown property', { to: { appUserId }, type: 'text', text: 'x', extra: true }, ['extra']],
      ['several at once', { to: 'u_x', type: 7 }, ['to', 'type']],
    ])('%s → 400 on its fields', async (_label, body, fields) => {
      const app = await sharedApp();
      const res = await sendMessage(app.sandboxKey, body);
      expectError(res, 400, 'invalid_request');
      expect([...new Set(res.body.error.details.map((d: { field: string }) => d.field))].sort()).toEqual([...fields].sort());
    });
    it('accepts text of exactly 4096 characters and a 128-character clientReference', async () => {
      const { app, appUserId: tester } = await appWithTester();
      expectStatus(
        await sendMessage(app.sandboxKey, { to: { appUserId: tester }, type: 'text', text: 'x'.repeat(4096), clientReference: 'c'.repeat(128) }),
        202,
      );
    });
    it('a body that is not JSON is 400 invalid_json', async () => {
      const app = await sharedApp();
      const res = await http(`${publicUrl()}/messages`, {
        method: 'POST',
        rawBody: '{"to": ',
        headers: { authorization: `Bearer ${app.sandboxKey}`, 'content-type': 'application/json', 'idempotency-key': unique('k') },
      });
      expectError(res, 400, 'invalid_json');
    });
  });

  describe('reach, consent, caps and quota (D9)', () => {
    it('unknown appUserId → 404 recipient_not_found', async () => {
      const app = await sharedApp();
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA' }, type: 'text', text: 'x' }), 404, 'recipient_not_found');
    });
    it('a deactivated account → 403 recipient_unavailable', async () => {
      const { app, userId, appUserId } = await appWithTester();
      expectStatus(await admin('PATCH', `/users/${userId}`, { status: 'deactivated' }), 200);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'recipient_unavailable');
    });
    it('sandbox key to a user who is not an accepted tester → 403 recipient_not_tester', async () => {
      const app = await sharedApp();
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'recipient_not_tester');
    });
    it('a tester who stopped the app → 403 consent_required; blocked too', async () => {
      const { app, userId, appUserId } = await appWithTester();
      expectStatus(await simAppAction(userId, app.appId, 'stop'), 200);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'consent_required');
      expectStatus(await simAppAction(userId, app.appId, 'allow'), 200);
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'back' }), 202);
      expectStatus(await simAppAction(userId, app.appId, 'block'), 200);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'consent_required');
    });
    it('an invited tester who has not accepted → 403 recipient_not_tester', async () => {
      const app = await createTestApp();
      const user = await createTestUser(app.orgId);
      expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
      const appUserId = expectStatus(await admin('GET', `/apps/${app.appId}/users/${user.id}`), 200).body.appUserId;
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'recipient_not_tester');
    });
    it('a fourth business-initiated message in 24 h → 429 business_initiated_cap; a user message opens the window', async () => {
      const { app, userId, appUserId } = await appWithTester();
      for (let i = 0; i < 3; i++) expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `bi ${i}` }), 202);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'bi 4' }), 429, 'business_initiated_cap');
      await simSendText(userId, app.appId);
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'a reply' }), 202);
    });
    it('the cap answers before the quota, even a quota of 0 (D9 order)', async () => {
      const { app, appUserId } = await appWithTester();
      for (let i = 0; i < 3; i++) expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `bi ${i}` }), 202);
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 0 }), 200);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'bi 4' }), 429, 'business_initiated_cap');
    });
    it('the daily quota → 429 daily_quota_exceeded', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId);
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 2 }), 200);
      for (let i = 0; i < 2; i++) expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `q ${i}` }), 202);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'q 3' }), 429, 'daily_quota_exceeded');
    });
    it('an unknown mediaId → 400 invalid_request on mediaId (after consent)', async () => {
      const { app, appUserId } = await appWithTester();
      const res = await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: 'med_unknown' });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.details).toEqual([{ field: 'mediaId', issue: 'no such media for this app' }]);
    });

    describe('live keys', () => {
      async function liveApp(status: 'internal_live' | 'public_live', allowsExternalBusinesses = false) {
        const app = await createTestApp({ allowsExternalBusinesses });
        expectStatus(await admin('POST', `/apps/${app.appId}/status`, { action: 'approve' }), 200);
        if (status === 'public_live') expectStatus(await admin('POST', `/apps/${app.appId}/status`, { action: 'approve' }), 200);
        const key = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'live' }), 201).body.key;
        return { ...app, liveKey: key as string };
      }
      async function optedInUser(appId: string, orgId: string) {
        const user = await createTestUser(orgId);
        const { appUserId } = await simSendText(user.id, appId);
        return { user, appUserId };
      }
      it('internal_live reaches its own org, by appUserId and by email', async () => {
        const app = await liveApp('internal_live');
        const { user, appUserId } = await optedInUser(app.appId, app.orgId);
        expectStatus(await sendMessage(app.liveKey, { to: { appUserId }, type: 'text', text: 'x' }), 202);
        const byEmail = expectStatus(await sendMessage(app.liveKey, { to: { email: user.email.toUpperCase() }, type: 'text', text: 'by email' }), 202);
        expect(byEmail.body.appUserId).toBe(appUserId);
      });
      it('internal_live to another org → 403 recipient_outside_org; email of another org → 403 email_addressing_not_allowed', async () => {
        const app = await liveApp('internal_live');
        const other = await createTestApp({ allowsExternalBusinesses: true });
        const outsider = await createTestUser(other.orgId);
        const { appUserId } = await simSendText(outsider.id, app.appId);
        expectError(await sendMessage(app.liveKey, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'recipient_outside_org');
        expectError(await sendMessage(app.liveKey, { to: { email: outsider.email }, type: 'text', text: 'x' }), 403, 'email_addressing_not_allowed');
        expectError(await sendMessage(app.liveKey, { to: { email: 'nobody@nowhere.example' }, type: 'text', text: 'x' }), 404, 'recipient_not_found');
      });
      it('public_live: orgs that allow outside businesses yes, others 403 recipient_org_blocks_businesses; no email addressing', async () => {
        const app = await liveApp('public_live');
        const open = await createTestApp({ allowsExternalBusinesses: true });
        const closed = await createTestApp({ allowsExternalBusinesses: false });
        const reachable = await optedInUser(app.appId, open.orgId);
        const unreachable = await optedInUser(app.appId, closed.orgId);
        expectStatus(await sendMessage(app.liveKey, { to: { appUserId: reachable.appUserId }, type: 'text', text: 'x' }), 202);
        expectError(
          await sendMessage(app.liveKey, { to: { appUserId: unreachable.appUserId }, type: 'text', text: 'x' }),
          403,
          'recipient_org_blocks_businesses',
        );
        expectError(await sendMessage(app.liveKey, { to: { email: reachable.user.email }, type: 'text', text: 'x' }), 403, 'email_addressing_not_allowed');
        // The org changes its mind.
        expectStatus(await admin('PATCH', `/orgs/${closed.orgId}`, { allowsExternalBusinesses: true }), 200);
        expectStatus(await sendMessage(app.liveKey, { to: { appUserId: unreachable.appUserId }, type: 'text', text: 'x' }), 202);
      });
      it('email addressing with a sandbox key → 403 email_addressing_not_allowed', async () => {
        const app = await liveApp('internal_live');
        const { user } = await optedInUser(app.appId, app.orgId);
        expectError(await sendMessage(app.sandboxKey, { to: { email: user.email }, type: 'text', text: 'x' }), 403, 'email_addressing_not_allowed');
      });
    });
  });

  describe('concurrent sends, decided in shared batches (group commit)', () => {
    it('the daily quota admits exactly its number of concurrent sends; the others are 429 and keep no key', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId);
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 5 }), 200);
      const keys = Array.from({ length: 12 }, () => unique('quota-'));
      const results = await Promise.all(keys.map((key, i) => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `q ${i}` }, key)));
      expect(results.filter((r) => r.status === 202)).toHaveLength(5);
      const refused = results.filter((r) => r.status !== 202);
      for (const r of refused) expect([r.status, r.body.error.code]).toEqual([429, 'daily_quota_exceeded']);
      await eventually(async () => (await simInbox(userId, app.appId)).filter((m) => (m.text ?? '').startsWith('q ')).length === 5);
      // A refused send released its key: with room in the quota, the same key sends.
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 6 }), 200);
      const retried = keys[results.findIndex((r) => r.status === 429)];
      const ok = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `q ${keys.indexOf(retried)}` }, retried), 202);
      expect(ok.headers.get('idempotent-replayed')).toBeNull();
    });

    it('a batch that decided on a count another batch raised past the quota is decided again: 429, key released', async () => {
      const { app, userId, appUserId } = await appWithTester();
      await simSendText(userId, app.appId);
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 3 }), 200);
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'q 1' }), 202);
      // Another batch (here the test's own transaction) holds the counter, and takes the rest of the quota.
      const other = new Client({ connectionString: process.env.DATABASE_URL });
      await other.connect();
      const key = unique('stale-');
      try {
        await other.query('begin');
        await other.query('select 1 from messaging.daily_counts where app_id = $1 for update', [app.appId]);
        const late = sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'q late' }, key);
        await eventually(async () => {
          const [waiting] = await queryDatabase<{ n: number }>(`select count(*)::int as n from pg_stat_activity where $1 = any (pg_blocking_pids(pid))`, [
            (other as unknown as { processID: number }).processID,
          ]);
          return waiting.n > 0;
        });
        await other.query('update messaging.daily_counts set accepted = 3 where app_id = $1', [app.appId]);
        await other.query('commit');
        expectError(await late, 429, 'daily_quota_exceeded');
      } finally {
        await other.end();
      }
      const [counter] = await queryDatabase<{ accepted: number }>('select accepted from messaging.daily_counts where app_id = $1', [app.appId]);
      expect(counter.accepted).toBe(3);
      expectStatus(await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 4 }), 200);
      await eventually(async () => (await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'q late' }, key)).status === 202);
    });

    it('concurrent business-initiated sends to one user pass the cap of 3 exactly', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `bi ${i}` })));
      expect(results.filter((r) => r.status === 202)).toHaveLength(3);
      for (const r of results.filter((r) => r.status !== 202)) expect([r.status, r.body.error.code]).toEqual([429, 'business_initiated_cap']);
      await eventually(async () => (await simInbox(userId, app.appId)).length === 3);
    });

    it('each send of a mixed crowd gets its own answer, and every accepted one reaches its user once', async () => {
      const apps = await Promise.all([appWithTester(), appWithTester(), appWithTester()]);
      for (const { app, userId } of apps) await simSendText(userId, app.appId);
      const requests = apps.flatMap(({ app, appUserId }, a) => [
        ...Array.from({ length: 6 }, (_, i) => ({
          a,
          ok: true,
          send: () => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `crowd ${a}-${i}`, clientReference: `r${a}-${i}` }),
        })),
        { a, ok: false, send: () => sendMessage(app.sandboxKey, { to: { appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA' }, type: 'text', text: 'nobody' }) },
        { a, ok: false, send: () => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: 'med_unknown' }) },
      ]);
      const results = await Promise.all(requests.map((r) => r.send()));
      results.forEach((res, i) => {
        if (requests[i].ok) {
          expect(res.status).toBe(202);
          expect(res.body.clientReference).toMatch(/^r\d-\d$/);
        } else {
          expect([404, 400]).toContain(res.status);
          expect(['recipient_not_found', 'invalid_request']).toContain(res.body.error.code);
        }
      });
      for (const [a, { app, userId }] of apps.entries()) {
        const accepted = results.filter((res, i) => requests[i].a === a && res.status === 202);
        for (const res of accepted) {
          const got = expectStatus(await api('GET', `/messages/${res.body.id}`, app.sandboxKey), 200);
          expect(got.body.clientReference).toBe(res.body.clientReference);
        }
        await eventually(async () => (await simInbox(userId, app.appId)).filter((m) => (m.text ?? '').startsWith('crowd ')).length === 6);
        const texts = (await simInbox(userId, app.appId)).filter((m) => (m.text ?? '').startsWith('crowd ')).map((m) => m.text ?? '');
        expect(new Set(texts).size).toBe(6);
        expect(texts.every((t) => t.startsWith(`crowd ${a}-`))).toBe(true);
      }
    });
  });

  describe('GET /messages/{id}', () => {
    it("another app's message is 404 not_found; an id over 64 characters 400 invalid_request", async () => {
      const { app, appUserId } = await appWithTester();
      const other = await createTestApp();
      const id = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'mine' }), 202).body.id;
      expectError(await api('GET', `/messages/${id}`, other.sandboxKey), 404, 'not_found');
      expectError(await api('GET', '/messages/msg_nothing', app.sandboxKey), 404, 'not_found');
      const long = await api('GET', `/messages/${'m'.repeat(65)}`, app.sandboxKey);
      expectError(long, 400, 'invalid_request');
      expect(long.body.error.details).toEqual([{ field: 'id', issue: 'must be at most 64 characters' }]);
    });
    it('needs messages:read; sending needs messages:send', async () => {
      const { app, appUserId } = await appWithTester();
      const readOnly = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', scopes: ['messages:read'] }), 201).body;
      expectError(await sendMessage(readOnly.key, { to: { appUserId }, type: 'text', text: 'x' }), 403, 'insufficient_scope');
      expectStatus(await admin('DELETE', `/apps/${app.appId}/keys/${readOnly.id}`), 200);
      const sendOnly = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', scopes: ['messages:send'] }), 201).body;
      expectError(await api('GET', '/messages/msg_x', sendOnly.key), 403, 'insufficient_scope');
    });
  });

  let shared: Awaited<ReturnType<typeof createTestApp>> | null = null;
  async function sharedApp() {
    shared ??= await createTestApp();
    return shared;
  }
});
