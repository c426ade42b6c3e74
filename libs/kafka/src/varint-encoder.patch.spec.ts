/** kafkajs' Encoder before and after the patch: the patch replaces a prototype method, so the original is taken first. */
interface TestEncoder {
  writeUVarInt(value: number): TestEncoder;
  writeVarInt(value: number): TestEncoder;
  writeVarIntString(value: string): TestEncoder;
  writeInt32(value: number): TestEncoder;
  buffer: Buffer;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Encoder = require('kafkajs/src/protocol/encoder') as { new (initialSize?: number): TestEncoder; prototype: TestEncoder };
const kafkajsWriteUVarInt = Encoder.prototype.writeUVarInt;

import { writeVarIntsInPlace } from './varint-encoder.patch';

const values = [
  0,
  1,
  63,
  64,
  127,
  128,
  255,
  300,
  16_383,
  16_384,
  2_097_151,
  2_097_152,
  268_435_455,
  268_435_456,
  2 ** 31 - 1,
  2 ** 32 - 1,
  -1,
  -2,
  -64,
  -65,
  -(2 ** 31),
];

function encode(write: (e: TestEncoder) => void, initialSize?: number): Buffer {
  const encoder = new Encoder(initialSize);
  write(encoder);
  return encoder.buffer;
}

describe('writeVarIntsInPlace', () => {
  const original = (e: TestEncoder, v: number) => kafkajsWriteUVarInt.call(e, v);
  let patchedBytes: Buffer[];
  let originalBytes: Buffer[];
  let patchedWriter: TestEncoder['writeUVarInt'];

  beforeAll(() => {
    originalBytes = values.map((v) => encode((e) => original(e, v)));
    writeVarIntsInPlace();
    patchedWriter = Encoder.prototype.writeUVarInt;
    patchedBytes = values.map((v) => encode((e) => e.writeUVarInt(v)));
  });

  it('replaces kafkajs’ method', () => {
    expect(Encoder.prototype.writeUVarInt).not.toBe(kafkajsWriteUVarInt);
  });

  it('writes the bytes kafkajs writes, for every length from one to five bytes and for negative numbers', () => {
    expect(patchedBytes.map((b) => b.toString('hex'))).toEqual(originalBytes.map((b) => b.toString('hex')));
    expect(patchedBytes.map((b) => b.length)).toContain(5);
  });

  it('writes signed (zigzag) varints and varint-prefixed strings as kafkajs does, growing a full buffer', () => {
    const fields = (e: TestEncoder) => {
      e.writeInt32(7);
      for (const v of values) e.writeVarInt(v);
      e.writeVarIntString('héllo 👋'.repeat(40));
    };
    // A one-byte encoder has to grow for nearly every field.
    const patched = encode(fields, 1);
    Encoder.prototype.writeUVarInt = kafkajsWriteUVarInt;
    try {
      expect(patched.toString('hex')).toBe(encode(fields, 1).toString('hex'));
    } finally {
      Encoder.prototype.writeUVarInt = patchedWriter;
    }
  });
});
