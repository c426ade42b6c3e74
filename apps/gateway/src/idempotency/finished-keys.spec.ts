import { IDEMPOTENCY_KEY_TTL_MS } from '#platform/contracts';
import { FinishedKeys } from './finished-keys';

const accepted = (id: string) => ({ status: 202, body: { id, status: 'accepted' } });

describe('FinishedKeys (the keys this gateway answered 2xx)', () => {
  it('answers the same app, key and body, and nothing else', () => {
    const keys = new FinishedKeys();
    keys.remember('app_a', 'order-1', 'hash-1', accepted('msg_1'), 0);
    expect(keys.answer('app_a', 'order-1', 'hash-1', 1000)).toEqual(accepted('msg_1'));
    expect(keys.answer('app_a', 'order-1', 'hash-2', 1000)).toBeNull();
    expect(keys.answer('app_b', 'order-1', 'hash-1', 1000)).toBeNull();
    expect(keys.answer('app_a', 'order-2', 'hash-1', 1000)).toBeNull();
    expect(keys.holds('app_a', 'order-1', 1000)).toBe(true);
    expect(keys.holds('app_b', 'order-1', 1000)).toBe(false);
  });

  it('forgets a key once its 24 h record is over, counted from when the record began', () => {
    const keys = new FinishedKeys();
    const began = 5_000;
    keys.remember('app_a', 'order-1', 'hash-1', accepted('msg_1'), began);
    expect(keys.answer('app_a', 'order-1', 'hash-1', began + IDEMPOTENCY_KEY_TTL_MS - 1)).toEqual(accepted('msg_1'));
    expect(keys.holds('app_a', 'order-1', began + IDEMPOTENCY_KEY_TTL_MS)).toBe(false);
    expect(keys.size).toBe(0);
  });

  it('keeps at most its bound, the least recently used going first', () => {
    const keys = new FinishedKeys(3);
    for (const key of ['k1', 'k2', 'k3']) keys.remember('app_a', key, 'h', accepted(key), 0);
    // k1 answered again: k2 is now the least recently used.
    expect(keys.answer('app_a', 'k1', 'h', 1)).not.toBeNull();
    keys.remember('app_a', 'k4', 'h', accepted('k4'), 0);
    expect(keys.size).toBe(3);
    expect(['k1', 'k2', 'k3', 'k4'].filter((key) => keys.holds('app_a', key, 1))).toEqual(['k1', 'k3', 'k4']);
  });

  it('keeps the latest answer of a key, and nothing without a time its record began', () => {
    const keys = new FinishedKeys();
    keys.remember('app_a', 'order-1', 'hash-1', accepted('msg_1'), 0);
    keys.remember('app_a', 'order-1', 'hash-2', accepted('msg_2'), 10);
    expect(keys.answer('app_a', 'order-1', 'hash-1', 20)).toBeNull();
    expect(keys.answer('app_a', 'order-1', 'hash-2', 20)).toEqual(accepted('msg_2'));
    keys.remember('app_a', 'order-3', 'hash-3', accepted('msg_3'), Number.NaN);
    expect(keys.holds('app_a', 'order-3', 20)).toBe(false);
  });
});
