import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import { startMailSink } from '#platform/testing';
import { enqueueMail, mailOutboxTablesSql, MailSender, type OutgoingMail } from '#platform/mail';
import { createTestSchema, dropTestSchema, uniqueName, waitFor, type TestSchema } from './integration.test-helpers';

/**
 * The mail path against a real Postgres schema and a real SMTP server (the local sink): an email
 * is queued in its cause's transaction, once per cause, and sent once, also when the SMTP server
 * is down for a while and when the sender that claimed it dies.
 */
const FROM = 'no-reply@mail.example';

let db: TestSchema;
let sinkDir: string;
const closers: Array<() => Promise<unknown> | unknown> = [];

beforeEach(async () => {
  db = await createTestSchema({ prefix: 'mail_test', extraSql: (schema) => mailOutboxTablesSql(schema) });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await dropTestSchema(db);
  if (sinkDir) rmSync(sinkDir, { recursive: true, force: true });
});

async function sink(port = 0) {
  sinkDir ??= mkdtempSync(path.join(os.tmpdir(), 'mail-sink-'));
  const started = await startMailSink({ dir: sinkDir, smtpPort: port });
  closers.push(() => started.close());
  return started;
}

function mail(to: string): OutgoingMail {
  return { cause: uniqueName('evt') + ':endpoint-disabled', to: [to], subject: 'Your endpoint was disabled', text: 'plain', html: '<p>html</p>' };
}

function sender(smtpPort: number, options: { leaseMs?: number } = {}) {
  const transport = createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, connectionTimeout: 2000 });
  const errors: unknown[] = [];
  const s = new MailSender({ orm: db.orm, schema: db.schema, transport, from: FROM, pollMs: 50, leaseMs: options.leaseMs, onError: (e) => errors.push(e) });
  closers.push(() => s.stop());
  return { sender: s, errors };
}

const outbox = () =>
  db.query<{ message_id: string; attempts: number; sent_at: Date | null; last_error: string | null }>(`select * from ${db.schema}.mail_outbox`);

it('queues one email per cause, however often the cause is applied, and sends it once', async () => {
  const smtp = await sink();
  const to = `${uniqueName('owner')}@mail.example`;
  const email = mail(to);
  const queued = [];
  for (let i = 0; i < 3; i++) queued.push(await db.em().transactional((em) => enqueueMail(em, db.schema, email, FROM)));
  expect(queued).toEqual([true, false, false]);

  const { sender: s } = sender(smtp.smtpPort);
  expect(await s.sendDue()).toBe(1);
  expect(await s.sendDue()).toBe(0);
  const caught = smtp.caught().filter((m) => m.to.includes(to));
  expect(caught).toHaveLength(1);
  const [row] = await outbox();
  expect(caught[0]).toMatchObject({ subject: 'Your endpoint was disabled', from: FROM, messageId: `<${row.message_id}>` });
  expect(row.message_id).toMatch(/^[0-9a-f]{32}@mail\.example$/);
  expect(row.sent_at).not.toBeNull();
  // Once sent, the body (which may hold a sign-in link) is gone; the record stays.
  const [kept] = await db.query<{ subject: string; text_body: string; html_body: string }>(
    `select subject, text_body, html_body from ${db.schema}.mail_outbox`,
  );
  expect(kept).toEqual({ subject: 'Your endpoint was disabled', text_body: '', html_body: '' });
});

it('keeps an email while the SMTP server is down, retries with backoff and delivers it once when it is back', async () => {
  // A port with nothing listening: start a sink to get a free one, then close it.
  const probe = await sink();
  const port = probe.smtpPort;
  await probe.close();
  const to = `${uniqueName('owner')}@mail.example`;
  await db.em().transactional((em) => enqueueMail(em, db.schema, mail(to), FROM));

  const { sender: s, errors } = sender(port);
  expect(await s.sendDue()).toBe(0);
  const [failed] = await outbox();
  expect(failed).toMatchObject({ attempts: 1, sent_at: null });
  expect(failed.last_error).toMatch(/ECONNREFUSED/);
  expect(errors).toHaveLength(1);
  // Not due again at once: the first retry waits about a second.
  expect(await s.sendDue()).toBe(0);
  expect((await outbox())[0].attempts).toBe(1);

  const smtp = await sink(port);
  s.start();
  await waitFor('the email to arrive', () => smtp.caught().some((m) => m.to.includes(to)));
  await waitFor('the email to be marked sent', async () => (await outbox())[0].sent_at !== null);
  expect(await s.sendDue()).toBe(0);
  expect(smtp.caught().filter((m) => m.to.includes(to))).toHaveLength(1);
  expect((await outbox())[0]).toMatchObject({ attempts: 2, last_error: null });
});

it('hands a claimed email to another sender when the claimant dies before sending', async () => {
  const smtp = await sink();
  const to = `${uniqueName('owner')}@mail.example`;
  await db.em().transactional((em) => enqueueMail(em, db.schema, mail(to), FROM));
  // A sender that claims the email and dies at once: its lease is all that is left of it.
  await db.query(`update ${db.schema}.mail_outbox set attempts = attempts + 1, next_attempt_at = now() + interval '1 second'`);

  const { sender: other } = sender(smtp.smtpPort);
  expect(await other.sendDue()).toBe(0);
  other.start();
  await waitFor('the email to arrive after the lease', () => smtp.caught().some((m) => m.to.includes(to)), { timeoutMs: 10_000 });
  await waitFor('the email to be marked sent', async () => (await outbox())[0].sent_at !== null);
  expect(smtp.caught().filter((m) => m.to.includes(to))).toHaveLength(1);
});
