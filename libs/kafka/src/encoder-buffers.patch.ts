/** What the patch touches of kafkajs' protocol Encoder. */
interface EncoderClass {
  nextPowerOfTwo(value: number): number;
  prototype: { buf: Buffer; offset: number; ensureAvailable(length: number): void };
}

/** The first buffer an encoder gets from the pool when it is first written to. */
const FIRST_BUFFER_BYTES = 256;

let patched = false;

/**
 * kafkajs 2.2.4 gives every Encoder (one per request, per topic, per partition, per record, per
 * header…) a zero-filled buffer of its own, `Buffer.alloc(512)`, and grows it with `Buffer.alloc`
 * too: each a new off-heap backing store, about 4 % of the gateway's and 5 % of messaging's CPU
 * under load, and work for the garbage collector. Patched, a new encoder starts with an empty buffer
 * (V8 keeps one that small on its heap, without a backing store) and grows from Node's shared
 * buffer pool (`Buffer.allocUnsafe`) on its first write. Only bytes the encoder has written are ever
 * read (`encoder.buffer` is the slice up to its offset), so unfilled memory never goes on the wire.
 *
 * The constructor sizes its first buffer with the static `nextPowerOfTwo` and nothing else in
 * kafkajs calls it, so the static now answers 0; growth uses its own rounding. Applied once per
 * process, before any client connects; encodings are compared with kafkajs' own in
 * encoder-buffers.patch.spec.ts.
 */
export function growEncoderBuffersFromPool(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Encoder = require('kafkajs/src/protocol/encoder') as EncoderClass;
  Encoder.nextPowerOfTwo = () => 0;
  Encoder.prototype.ensureAvailable = function ensureAvailable(length: number) {
    const needed = this.offset + length;
    if (needed <= this.buf.length) return;
    // The next power of two above what is needed, as kafkajs rounds.
    const grown = Buffer.allocUnsafe(Math.max(FIRST_BUFFER_BYTES, 2 ** (32 - Math.clz32(needed))));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  };
}
