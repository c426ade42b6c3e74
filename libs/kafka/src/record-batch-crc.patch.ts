let patched = false;

/**
 * kafkajs 2.2.4 checksums every record batch it produces with its CRC-32C function and then passes
 * the (already unsigned) result through `Uint32Array.from([value])[0]`: an array and a typed array
 * per batch, about 2 % of messaging's CPU under load, to return the same number. The record batch
 * module takes the checksum function when it is first loaded (at the first produce or fetch), so
 * the module's export is replaced with the CRC-32C function itself before any client connects.
 * The checksums are compared with kafkajs' own in record-batch-crc.patch.spec.ts.
 */
export function checksumRecordBatchesWithoutCopies(): void {
  if (patched) return;
  patched = true;
  const wrapperPath = require.resolve('kafkajs/src/protocol/recordBatch/crc32C');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(wrapperPath);
  const wrapper = require.cache[wrapperPath];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (wrapper) wrapper.exports = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C');
}
