import { connect } from 'node:net';
import { appOwnedBy, CONSOLE, csrfOf, Visitor, signedInVisitor } from './console-visitor.test-helpers';
import { unique } from '#platform/testing';

/**
 * A change is refused before its body is read: an unsigned upload, one without the session's
 * CSRF token, or one to an app the sender is not a member of, is answered as soon as its headers arrive, however large a body they announce. Over
 * a raw socket, so the body is really never sent.
 */
const ANSWER_WITHIN_MS = 2_000;

/** Sends only the headers of a 5 MB multipart POST; the status line of the answer and how long it took. */
function headersOnly(path: string, headers: Record<string, string>): Promise<{ status: number; ms: number; closed: boolean }> {
  const { hostname, port } = new URL(CONSOLE);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    let status = 0;
    let ms = 0;
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms to the headers of POST ${path} (received: ${JSON.stringify(received.slice(0, 200))})`));
    }, ANSWER_WITHIN_MS);
    socket.on('connect', () => {
      const lines = [
        `POST ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: multipart/form-data; boundary=----upload',
        'Content-Length: 5000000',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(lines.join('\r\n') + '\r\n\r\n');
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (!status && received.includes('\r\n')) {
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? -1);
        ms = Date.now() - started;
      }
    });
    // The answer is complete when the console closes the connection: it reads no body it refused.
    socket.on('close', () => {
      clearTimeout(deadline);
      if (status) resolve({ status, ms, closed: true });
      else reject(new Error(`closed without an answer (received: ${JSON.stringify(received.slice(0, 200))})`));
    });
    socket.on('error', () => undefined);
  });
}

const cookieHeader = (visitor: Visitor) => [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

describe('console refusals before the body (e2e)', () => {
  it('answers an unsigned 5 MB profile upload at once, without its body', async () => {
    const visitor = new Visitor();
    const answer = await headersOnly(`/apps/app_${unique('x')}/profile`, { 'X-Forwarded-For': visitor.address });
    expect(answer).toEqual({ status: 303, ms: expect.any(Number), closed: true });
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it("answers a signed-in member's upload without the CSRF token at once, without its body", async () => {
    const owner = `${unique('owner.')}@upload.example`;
    const appId = await appOwnedBy(owner);
    const visitor = await signedInVisitor(owner);
    const headers = { Cookie: cookieHeader(visitor), 'X-Forwarded-For': visitor.address };
    for (const path of [`/apps/${appId}/profile`, `/apps/${appId}/profile?csrf=forged`]) {
      const answer = await headersOnly(path, headers);
      expect([path, answer.status, answer.closed]).toEqual([path, 403, true]);
    }
  });

  it("answers a signed-in stranger's upload to another app with 404 at once, without its body", async () => {
    const stranger = `${unique('stranger.')}@upload.example`;
    await appOwnedBy(stranger);
    const otherApp = await appOwnedBy(`${unique('owner.')}@upload.example`);
    const visitor = await signedInVisitor(stranger);
    const apps = await visitor.request('GET', '/apps');
    const answer = await headersOnly(`/apps/${otherApp}/profile?csrf=${encodeURIComponent(csrfOf(apps.body))}`, {
      Cookie: cookieHeader(visitor),
      'X-Forwarded-For': visitor.address,
    });
    expect([answer.status, answer.closed]).toEqual([404, true]);
  });
});
