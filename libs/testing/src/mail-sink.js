// @ts-check
/**
 * The local SMTP sink of dev and test: accepts every message (no auth, no TLS, loopback only), keeps
 * it, and lists what it caught over HTTP, newest first: `GET /messages?to=<address>` →
 * `{data: [{id, messageId, from, to, subject, text, html, sentAt}]}`; `GET /healthz`. The gateway's
 * `GET /admin/v1/mail` reads that list. Messages are appended to `<dir>/messages.jsonl` and read
 * back on start, so a restarted sink still lists them. Every copy it receives is kept, so a test
 * that counts emails sees a resend as a second one. Plain CommonJS with JSDoc types: tools/infra
 * starts it before anything is built (tools/infra/mail-sink-server.mjs).
 */
'use strict';
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { simpleParser } = require('mailparser');
const { SMTPServer } = require('smtp-server');

/** @typedef {{ id: string, messageId: string | null, from: string | null, to: string[], subject: string, text: string, html: string, sentAt: string }} CaughtMail */

/** Largest message the sink takes (SMTP SIZE): far above any email the platform writes. */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

/**
 * @param {import('mailparser').AddressObject | import('mailparser').AddressObject[] | undefined} field
 * @returns {string[]}
 */
function addresses(field) {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((group) => group.value.map((entry) => (entry.address ?? '').toLowerCase())).filter(Boolean);
}

/**
 * Starts the sink. Port 0 picks a free port; the returned ports are the real ones.
 * @param {{ dir: string, host?: string, smtpPort?: number, httpPort?: number }} options
 * @returns {Promise<{ smtpPort: number, httpPort: number, caught: () => CaughtMail[], close: () => Promise<void> }>}
 */
async function startMailSink({ dir, host = '127.0.0.1', smtpPort = 0, httpPort = 0 }) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'messages.jsonl');
  /** @type {CaughtMail[]} */
  const mails = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line))
    : [];

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          /** @type {CaughtMail} */
          const mail = {
            id: `mail_${randomBytes(10).toString('hex')}`,
            messageId: parsed.messageId ?? null,
            from: addresses(parsed.from)[0] ?? null,
            // The envelope is who it was sent to (Bcc included); the headers may say less.
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            sentAt: new Date().toISOString(),
          };
          fs.appendFileSync(file, `${JSON.stringify(mail)}\n`);
          mails.push(mail);
          callback();
        })
        .catch((error) => callback(error));
    },
  });

  const web = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sink');
    /** @type {(status: number, body: unknown) => void} */
    const answer = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/healthz') return answer(200, { status: 'ok', caught: mails.length });
    if (req.method === 'GET' && url.pathname === '/messages') {
      const to = url.searchParams.get('to')?.toLowerCase();
      const data = mails.filter((mail) => !to || mail.to.includes(to)).reverse();
      return answer(200, { data });
    }
    return answer(404, { error: 'not found' });
  });

  /** @type {(server: import('node:net').Server, port: number) => Promise<number>} */
  const listen = (server, port) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const boundSmtp = await listen(smtp.server, smtpPort);
  const boundHttp = await listen(web, httpPort);
  return {
    smtpPort: boundSmtp,
    httpPort: boundHttp,
    caught: () => [...mails],
    close: async () => {
      await new Promise((resolve) => smtp.close(() => resolve(undefined)));
      await new Promise((resolve) => web.close(() => resolve(undefined)));
    },
  };
}

module.exports = { startMailSink };
