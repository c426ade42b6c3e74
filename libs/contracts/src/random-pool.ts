import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `length` bytes from the operating system's CSPRNG, drawn from a pool refilled 4 KiB at a time
 * (what Node's own `randomUUID` does). Every id, request id and trace id took a `randomBytes` call
 * of its own: a synchronous call into OpenSSL and a new Buffer each, several per send, and among
 * the larger items of the gateway's and messaging's CPU profiles under load. Each byte is handed
 * out once.
 *
 * The answer is a view into the pool: read it before the next call, and copy what must be kept.
 */
export function takeRandomBytes(length: number): Buffer {
  if (length > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(length));
  if (used + length > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const bytes = pool.subarray(used, used + length);
  used += length;
  return bytes;
}

/** `length` random bytes as 2 × `length` lower-case hex digits. */
export function randomHex(length: number): string {
  return takeRandomBytes(length).toString('hex');
}
