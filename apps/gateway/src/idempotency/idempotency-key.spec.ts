import { DomainError } from '#platform/errors';
import { bodyHash, canonicalJson, checkIdempotencyKey } from './idempotency-key';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as DomainError).code;
  }
  return null;
};

describe('Idempotency-Key', () => {
  it('takes 1-255 printable ASCII characters', () => {
    expect(checkIdempotencyKey('order-42')).toBe('order-42');
    expect(checkIdempotencyKey('~ !"#$%&()*+,-./09:;<=>?@AZ[\\]^_`az{|}')).toBeTruthy();
    expect(checkIdempotencyKey('k'.repeat(255))).toHaveLength(255);
  });
  it('missing or empty → idempotency_key_required', () => {
    expect(codeOf(() => checkIdempotencyKey(undefined))).toBe('idempotency_key_required');
    expect(codeOf(() => checkIdempotencyKey(''))).toBe('idempotency_key_required');
  });
  it.each([['k'.repeat(256)], ['tab\there'], ['ünïcode'], ['line\nbreak'], ['\x7f']])('refuses %j with invalid_request', (key) => {
    expect(codeOf(() => checkIdempotencyKey(key))).toBe('invalid_request');
  });
});

describe('body hash', () => {
  it('ignores key order and spacing', () => {
    expect(bodyHash(JSON.parse('{"b":1,"a":{"y":2,"x":[1,{"q":1,"p":2}]}}'))).toBe(bodyHash({ a: { x: [1, { p: 2, q: 1 }], y: 2 }, b: 1 }));
  });
  it('tells different values apart', () => {
    expect(bodyHash({ a: 1 })).not.toBe(bodyHash({ a: '1' }));
    expect(bodyHash({ a: [1, 2] })).not.toBe(bodyHash({ a: [2, 1] }));
    expect(bodyHash({ a: null })).not.toBe(bodyHash({}));
  });
  it('is canonical JSON', () => expect(canonicalJson({ b: [true, null], a: 'x' })).toBe('{"a":"x","b":[true,null]}'));
});
