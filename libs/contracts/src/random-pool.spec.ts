import { newRequestId, randomBase62, ulid, uuidv7 } from './ids';
import { randomHex, takeRandomBytes } from './random-pool';

describe('takeRandomBytes', () => {
  it('hands out each byte of the pool once, across refills', () => {
    // 1 000 draws of 16 bytes cross the 4 KiB pool's refill several times.
    const drawn = Array.from({ length: 1000 }, () => takeRandomBytes(16).toString('hex'));
    expect(new Set(drawn).size).toBe(1000);
    expect(drawn.every((hex) => hex.length === 32 && hex !== '0'.repeat(32))).toBe(true);
  });

  it('gives the length asked for, also larger than the pool', () => {
    for (const length of [0, 1, 7, 4095, 4096, 10_000]) expect(takeRandomBytes(length)).toHaveLength(length);
    const large = takeRandomBytes(10_000);
    expect(large.some((byte) => byte !== 0)).toBe(true);
  });

  it('spreads bytes evenly (no fixed or missing values)', () => {
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 256; i++) for (const byte of takeRandomBytes(256)) counts[byte]++;
    // 65 536 bytes, 256 expected per value; a stuck or skipped value falls far outside this.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(370);
  });

  it('randomHex gives two lower-case hex digits per byte', () => {
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(16)).not.toBe(randomHex(16));
  });
});

describe('ids drawn from the pool', () => {
  it('uuidv7 carries the time, the version and the variant, and keeps its random part', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const ids = Array.from({ length: 300 }, () => uuidv7(now));
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
    }
    expect(new Set(ids).size).toBe(300);
  });

  it('ulid, request ids and base62 strings have their alphabet and length, and differ', () => {
    const ulids = Array.from({ length: 300 }, () => ulid(1_700_000_000_000));
    expect(ulids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ulids).size).toBe(300);
    expect(newRequestId()).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(randomBase62(100)).toMatch(/^[0-9A-Za-z]{100}$/);
  });
});
