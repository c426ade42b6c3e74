/** What the patch touches of kafkajs' protocol Encoder. */
interface EncoderInternals {
  buf: Buffer;
  offset: number;
  ensureAvailable(length: number): void;
  writeUVarInt(value: number): EncoderInternals;
}

let patched = false;

/**
 * kafkajs 2.2.4 writes each unsigned varint (the lengths, counts and deltas of every record, header
 * and request field in the v2 record format) by pushing its bytes onto a new array and copying a
 * new Buffer made from it: two objects per number, about ten numbers per record. Under load that
 * was among the largest allocations of the services that produce (heap sampler), and every
 * allocation brings the next scavenge nearer. This writes the same LEB128 bytes straight into the
 * encoder's buffer. Applied once per process, before any client connects; the bytes are checked
 * against kafkajs' own in varint-encoder.patch.spec.ts.
 */
export function writeVarIntsInPlace(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Encoder = require('kafkajs/src/protocol/encoder') as { prototype: EncoderInternals };
  Encoder.prototype.writeUVarInt = function writeUVarInt(this: EncoderInternals, value: number) {
    // At most five bytes for 32 bits; `>>>` makes a negative value unsigned after the first byte, as kafkajs does.
    this.ensureAvailable(5);
    while ((value & 0xffffff80) !== 0) {
      this.buf[this.offset++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buf[this.offset++] = value & 0x7f;
    return this;
  };
}
