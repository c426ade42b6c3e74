/** Bytes of a delivery's response body kept for the delivery log: the first 2 KiB. */
export const RESPONSE_EXCERPT_BYTES = 2048;

/**
 * The first `limit` bytes of a body as it streams in. It never holds more than `limit` bytes, and
 * copies what it keeps, so a large chunk the socket delivered is not retained through a slice of it.
 */
export class BodyPrefix {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`BodyPrefix: limit must be a whole number of bytes, got ${limit}`);
  }

  add(chunk: Buffer): void {
    this.seen += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = Buffer.from(chunk.subarray(0, room));
    this.parts.push(part);
    this.kept += part.length;
  }

  /** Bytes read so far, kept or not. */
  get bytesRead(): number {
    return this.seen;
  }

  /** More was read than kept. */
  get truncated(): boolean {
    return this.seen > this.kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts, this.kept);
  }
}

/**
 * Kept response bytes as text for the log: invalid UTF-8 becomes U+FFFD, a character cut by the
 * limit is left out rather than shown half, and NUL (which Postgres text cannot hold) becomes U+FFFD.
 */
export function excerptText(bytes: Buffer, truncated: boolean): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: truncated }).replace(/\u0000/g, '\uFFFD');
}
