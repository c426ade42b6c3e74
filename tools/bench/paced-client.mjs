/** The paced load's client: calls at an even rate, and JSON posts on kept-alive raw sockets (no HTTP client in the timing). */
import net from 'node:net';

/**
 * Calls `send(i, due)` for each i below `count`, at an even `rate` per second whatever the earlier
 * calls take (`due` is when call i was scheduled, on `performance.now()`'s clock); resolves with
 * all their results.
 */
export async function atEvenPace(rate, count, send) {
  const begin = performance.now();
  const pending = [];
  for (let i = 0; i < count; i++) {
    const due = begin + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(i, due));
  }
  return Promise.all(pending);
}

// Kept-alive sockets by host:port, unreferenced while idle so that they never hold the process open.
export const idleSockets = new Map();

/**
 * POST of a JSON body over a kept-alive TCP connection, answered as `{ ok, status, text() }` like
 * fetch. The paced client shares the machine with the stack it measures, so it should cost little:
 * it writes the request and reads the answer by its Content-Length (every answer of the gateway has
 * one) without node:http's machinery. At 500 requests/s node:http took 0.12–0.15 cores, and fetch
 * 0.22 at 400/s. An open-loop client opens as many sockets as the answers' delay needs.
 */
export function postJson(url, headers, body) {
  const { hostname, port, pathname, host } = new URL(url);
  const key = `${hostname}:${port}`;
  const head = [
    `POST ${pathname} HTTP/1.1`,
    `host: ${host}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = idleSockets.get(key)?.pop() ?? openSocket(key, hostname, Number(port));
    socket.ref();
    let received = Buffer.alloc(0);
    const done = () => {
      socket.off('data', onData);
      socket.off('error', onFailure);
      socket.off('close', onClose);
    };
    const onFailure = (error) => {
      done();
      socket.destroy();
      reject(error);
    };
    const onClose = () => onFailure(new Error('connection closed before the answer'));
    const onData = (chunk) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const responseHead = received.toString('latin1', 0, headEnd);
      const length = /\r\ncontent-length: *(\d+)/i.exec(responseHead)?.[1];
      if (length === undefined) return onFailure(new Error(`answer without content-length: ${responseHead.split('\r\n')[0]}`));
      if (received.length < headEnd + 4 + Number(length)) return;
      const status = Number(responseHead.slice(9, 12));
      const text = received.toString('utf8', headEnd + 4, headEnd + 4 + Number(length));
      done();
      socket.unref();
      idleSockets.get(key).push(socket);
      resolve({ ok: status >= 200 && status < 300, status, text: async () => text });
    };
    socket.on('data', onData);
    socket.on('error', onFailure);
    socket.on('close', onClose);
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

export function openSocket(key, host, port) {
  if (!idleSockets.has(key)) idleSockets.set(key, []);
  const socket = net.connect({ host, port, noDelay: true });
  // An idle socket the server closes leaves the pool quietly; a busy one fails its request.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    const idle = idleSockets.get(key);
    if (idle.includes(socket)) idle.splice(idle.indexOf(socket), 1);
  });
  return socket;
}
