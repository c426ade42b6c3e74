import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startMailSink } from '#platform/testing';
import { mailSettingsFromEnv } from '#platform/mail';

/**
 * Production's SMTP transport against a real server without TLS (the local sink offers no STARTTLS):
 * nothing leaves in plaintext unless the server is the relay SMTP_PLAINTEXT_RELAY names.
 */
let sinkDir: string;
let sink: Awaited<ReturnType<typeof startMailSink>>;
beforeAll(async () => {
  sinkDir = mkdtempSync(path.join(os.tmpdir(), 'smtp-tls-'));
  sink = await startMailSink({ dir: sinkDir });
});
afterAll(async () => {
  await sink?.close();
  rmSync(sinkDir, { recursive: true, force: true });
});

async function send(env: NodeJS.ProcessEnv): Promise<{ to: string; sent: Promise<unknown> }> {
  const { transport, from } = mailSettingsFromEnv({ MAIL_FROM: 'no-reply@mail.example', ...env }, { production: true });
  const to = `${randomUUID()}@mail.example`;
  const sent = transport
    .sendMail({ from, to, subject: 'Your sign-in link', text: 'https://console.example.com/sign-in/secret' })
    .finally(() => transport.close());
  return { to, sent };
}

const caughtFor = (to: string) => sink.caught().filter((mail: { to: string[] }) => mail.to.includes(to));

it('refuses to send in plaintext to a server without STARTTLS: the email never reaches it', async () => {
  const { to, sent } = await send({ SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}` });
  await expect(sent).rejects.toThrow(/STARTTLS/i);
  expect(caughtFor(to)).toEqual([]);
});

it('sends in plaintext to the relay SMTP_PLAINTEXT_RELAY names', async () => {
  const { to, sent } = await send({ SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`, SMTP_PLAINTEXT_RELAY: '127.0.0.1' });
  await sent;
  expect(caughtFor(to)).toHaveLength(1);
});
