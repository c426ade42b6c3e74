import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_VERSION, ERROR_CODES, newRequestId, type ErrorCode } from '#platform/contracts';
import { errorEnvelope } from '#platform/errors';

/** Parser errors that still leave a socket to answer on, and what each becomes. */
function refusalOf(code: string | undefined): { code: ErrorCode; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { code: 'headers_too_large', message: 'The request line and headers must fit in 16 KiB.' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADERS_TIMEOUT') return { code: 'request_timeout', message: 'The request did not arrive in time.' };
  return { code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' };
}

/**
 * Answers what Node's HTTP parser refuses (bad methods, header bytes, framing, sizes, timeouts)
 * and CONNECT with the error envelope and the spec's headers, instead of Node's bare answer or a
 * silently closed socket. The connection is closed after each: its framing cannot be trusted.
 */
export function answerParserRefusals(server: Server, docsUrl: string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(error.code);
    writeEnvelope(socket, refusal.code, refusal.message, docsUrl);
  });
  // No endpoint is a tunnel; without this listener Node closes the socket without a word.
  server.on('connect', (req, socket: Duplex) => writeEnvelope(socket, 'route_not_found', `No endpoint ${req.method} ${req.url}.`, docsUrl));
}

function writeEnvelope(socket: Duplex, code: ErrorCode, message: string, docsUrl: string): void {
  const requestId = newRequestId();
  const envelope = errorEnvelope({ code, message, requestId, docsUrl });
  const body = JSON.stringify(envelope);
  const status = ERROR_CODES[code].status;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Svc-Request-Id: ${requestId}`,
    `Svc-Version: ${API_VERSION}`,
    'Connection: close',
  ].join('\r\n');
  // Linger briefly after the answer: closing on bytes still unread would reset the connection,
  // and a reset can discard the answer before the client reads it.
  socket.on('error', () => socket.destroy());
  socket.once('end', () => socket.destroy());
  socket.resume();
  socket.end(`${head}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), 2_000).unref();
}
