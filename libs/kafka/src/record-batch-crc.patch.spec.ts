/* eslint-disable @typescript-eslint/no-require-imports */
type Checksum = (buffer: Buffer) => number;
const kafkajsChecksum = require('kafkajs/src/protocol/recordBatch/crc32C') as Checksum;

import { randomBytes } from 'node:crypto';
import { checksumRecordBatchesWithoutCopies } from './record-batch-crc.patch';

describe('checksumRecordBatchesWithoutCopies', () => {
  beforeAll(() => checksumRecordBatchesWithoutCopies());

  it('gives the record batch module a checksum equal to kafkajs’ for every input', () => {
    const patched = require('kafkajs/src/protocol/recordBatch/crc32C') as Checksum;
    expect(patched).not.toBe(kafkajsChecksum);
    const inputs = [Buffer.alloc(0), Buffer.from('123456789'), Buffer.alloc(1000, 0xff), ...Array.from({ length: 200 }, (_, i) => randomBytes(i * 37))];
    for (const input of inputs) expect(patched(input)).toBe(kafkajsChecksum(input));
    // The CRC-32C check value (RFC 3720, B.4): its top bit is set, and the checksum must stay unsigned.
    expect(patched(Buffer.from('123456789'))).toBe(0xe3069283);
  });
});
