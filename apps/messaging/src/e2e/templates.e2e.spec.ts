import {
  addTester,
  admin,
  api,
  createTestApp,
  eventually,
  expectError,
  expectStatus,
  requestsTo,
  registerWebhook,
  sendMessage,
  simInbox,
  startWebhookReceiver,
  verifiedSecrets,
  type TestApp,
} from '#platform/testing';
import type { HttpsReceiver } from '#platform/testing';

/**
 * Message templates end to end (architecture section 13): the calls, every refusal, the admin review
 * of a live app's template, a template send reaching the inbox rendered, and template.status
 * delivered signed. One stack and two apps shared by every case, to keep the suite short.
 */
const components = { header: { text: 'Order {{order_id}}' }, body: { text: 'Hi {{name}}, it has shipped.' }, footer: { text: 'Reply STOP to stop.' } };
const examples = { order_id: '1042', name: 'Ann' };
const draft = (name: string, over: Record<string, unknown> = {}) => ({ name, language: 'en', category: 'utility', components, examples, ...over });
const fields = (res: { body: any }) => (res.body.error.details ?? []).map((d: { field: string }) => d.field).sort();

describe('message templates (e2e)', () => {
  let sandbox: TestApp;
  let live: TestApp;
  let receiver: HttpsReceiver;
  let tester: { userId: string; appUserId: string };
  let liveTester: { userId: string; appUserId: string };

  beforeAll(async () => {
    [sandbox, live, receiver] = await Promise.all([createTestApp(), createTestApp(), startWebhookReceiver(0)]);
    [tester, liveTester] = await Promise.all([addTester(sandbox), addTester(live)]);
    expectStatus(await admin('POST', `/apps/${live.appId}/status`, { action: 'approve' }), 200);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('creates, lists, gets, changes and deletes a template (a sandbox app: approved at once)', async () => {
    const created = expectStatus(await api('POST', '/templates', sandbox.sandboxKey, draft('order_shipped')), 201).body;
    expect(created).toEqual({
      id: expect.stringMatching(/^tpl_[0-9A-Z]{26}$/),
      name: 'order_shipped',
      language: 'en',
      category: 'utility',
      components,
      variables: ['order_id', 'name'],
      status: 'approved',
      rejectedReason: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const other = expectStatus(await api('POST', '/templates', sandbox.sandboxKey, draft('welcome', { language: 'en_US' })), 201).body;

    const all = expectStatus(await api('GET', '/templates', sandbox.sandboxKey), 200).body;
    expect(all.data.map((t: { id: string }) => t.id)).toEqual([other.id, created.id]);
    expect(all.nextCursor).toBeNull();
    const first = expectStatus(await api('GET', '/templates?limit=1', sandbox.sandboxKey), 200).body;
    expect(first.data.map((t: { id: string }) => t.id)).toEqual([other.id]);
    const second = expectStatus(await api('GET', `/templates?limit=1&cursor=${first.nextCursor}`, sandbox.sandboxKey), 200).body;
    expect(second).toEqual({ data: [created], nextCursor: null });
    expect(expectStatus(await api('GET', '/templates?language=en_US&status=approved', sandbox.sandboxKey), 200).body.data).toEqual([other]);
    expect(expectStatus(await api('GET', '/templates?name=order_shipped', sandbox.sandboxKey), 200).body.data).toEqual([created]);
    expectError(await api('GET', '/templates?limit=101', sandbox.sandboxKey), 400, 'invalid_request');

    expect(expectStatus(await api('GET', `/templates/${created.id}`, sandbox.sandboxKey), 200).body).toEqual(created);
    const changed = expectStatus(
      await api('PATCH', `/templates/${created.id}`, sandbox.sandboxKey, { components: { body: { text: 'Hi {{name}}, on its way.' } } }),
      200,
    ).body;
    expect(changed).toMatchObject({ version: 2, status: 'approved', variables: ['name'], components: { body: { text: 'Hi {{name}}, on its way.' } } });

    expectStatus(await api('DELETE', `/templates/${other.id}`, sandbox.sandboxKey), 204);
    expectError(await api('GET', `/templates/${other.id}`, sandbox.sandboxKey), 404, 'not_found');
    // Its name and language are free again.
    expectStatus(await api('POST', '/templates', sandbox.sandboxKey, draft('welcome', { language: 'en_US' })), 201);
  });

  it('refuses what section 13 refuses, with the error envelope', async () => {
    const unknown = await api('POST', '/templates', sandbox.sandboxKey, draft('bad_one', { examples: { ...examples, extra: 'x' } }));
    expectError(unknown, 400, 'invalid_request');
    expect(fields(unknown)).toEqual(['examples.extra']);
    const missing = await api('POST', '/templates', sandbox.sandboxKey, draft('bad_two', { examples: { name: 'Ann' } }));
    expectError(missing, 400, 'invalid_request');
    expect(fields(missing)).toEqual(['examples.order_id']);
    const language = await api('POST', '/templates', sandbox.sandboxKey, draft('bad_three', { language: 'EN-us' }));
    expectError(language, 400, 'invalid_request');
    expect(fields(language)).toEqual(['language']);
    expect(language.body.error.type).toBe('invalid_request_error');

    expectStatus(await api('POST', '/templates', sandbox.sandboxKey, draft('twice')), 201);
    const exists = await api('POST', '/templates', sandbox.sandboxKey, draft('twice'));
    expectError(exists, 409, 'template_exists');
    expect(exists.body.error.type).toBe('conflict_error');

    const theirs = expectStatus(await api('POST', '/templates', live.sandboxKey, draft('theirs')), 201).body;
    for (const [method, body] of [['GET'], ['PATCH', { category: 'marketing' }], ['DELETE']] as const)
      expectError(await api(method, `/templates/${theirs.id}`, sandbox.sandboxKey, body), 404, 'not_found');

    const send = (template: unknown) => sendMessage(sandbox.sandboxKey, { to: { appUserId: tester.appUserId }, type: 'template', template });
    expectError(await send({ name: 'nope', language: 'en', variables: {} }), 404, 'template_not_found');
    const badVariables = await send({ name: 'twice', language: 'en', variables: { order_id: '1', nick: 'A' } });
    expectError(badVariables, 400, 'invalid_request');
    expect(fields(badVariables)).toEqual(['template.variables.name', 'template.variables.nick']);
    const withText = await sendMessage(sandbox.sandboxKey, {
      to: { appUserId: tester.appUserId },
      type: 'template',
      text: 'no',
      template: { name: 'twice', language: 'en', variables: examples },
    });
    expectError(withText, 400, 'invalid_request');
    expect(fields(withText)).toEqual(['text']);
  });

  it("reviews a live app's template through the admin API, sends it once approved, and delivers template.status signed", async () => {
    const hook = await registerWebhook(live, ['template.status']);
    const created = expectStatus(await api('POST', '/templates', live.sandboxKey, draft('receipt')), 201).body;
    expect(created.status).toBe('pending');
    const send = () =>
      sendMessage(live.sandboxKey, {
        to: { appUserId: liveTester.appUserId },
        type: 'template',
        template: { name: 'receipt', language: 'en', variables: examples },
      });
    expectError(await send(), 409, 'template_not_approved');

    const rejected = expectStatus(await admin('POST', `/templates/${created.id}/review`, { decision: 'reject', reason: 'Too vague.' }), 200).body;
    expect(rejected).toMatchObject({ status: 'rejected', rejectedReason: 'Too vague.', version: 1 });
    expectError(await send(), 409, 'template_not_approved');
    expectError(await admin('POST', `/templates/${created.id}/review`, { decision: 'approve' }), 409, 'invalid_transition');

    const changed = expectStatus(await api('PATCH', `/templates/${created.id}`, live.sandboxKey, { category: 'utility' }), 200).body;
    expect(changed).toMatchObject({ status: 'pending', rejectedReason: null, version: 2 });
    const approved = expectStatus(await admin('POST', `/templates/${created.id}/review`, { decision: 'approve' }), 200).body;
    expect(approved).toMatchObject({ status: 'approved', version: 2 });

    const accepted = expectStatus(await send(), 202).body;
    expect(accepted.type).toBe('template');
    const rendered = 'Order 1042\n\nHi Ann, it has shipped.\n\nReply STOP to stop.';
    const inbox = await eventually(async () => (await simInbox(liveTester.userId, live.appId)).find((m) => m.messageId === accepted.id));
    expect(inbox.text).toBe(rendered);
    const message = expectStatus(await api('GET', `/messages/${accepted.id}`, live.sandboxKey), 200).body;
    expect(message).toMatchObject({ type: 'template', text: rendered, template: { id: created.id, name: 'receipt', language: 'en', version: 2 } });

    // pending (v1), rejected (v1), pending (v2), approved (v2): each once, in order, signed with the endpoint's secret.
    const deliveries = await eventually(async () => {
      const got = requestsTo(receiver, hook.path);
      return got.length >= 4 ? got : null;
    });
    const statuses = deliveries.map((req) => JSON.parse(req.rawBody.toString('utf8')));
    expect(statuses.map((e) => [e.type, e.data.status, e.data.version])).toEqual([
      ['template.status', 'pending', 1],
      ['template.status', 'rejected', 1],
      ['template.status', 'pending', 2],
      ['template.status', 'approved', 2],
    ]);
    expect(statuses[1].data).toEqual({ id: created.id, name: 'receipt', language: 'en', status: 'rejected', reason: 'Too vague.', version: 1 });
    for (const req of deliveries) expect(verifiedSecrets(String(req.headers['svc-signature']), req.rawBody, [hook.secret]).matched).toEqual([hook.secret]);
  });
});
