import { DomainError } from '#platform/errors';
import { checkBodyText, checkUrlText } from './input-text';

function fieldsOf(run: () => void): string[] {
  try {
    run();
    return [];
  } catch (error) {
    return ((error as DomainError).details ?? []).map((d) => d.field);
  }
}

describe('checkBodyText', () => {
  it('names every string with a NUL or an unpaired surrogate, at any depth', () => {
    const body = { text: 'a\u0000', to: { email: 'x\ud800@y.z' }, events: ['ok', '\udc00'], fine: 'emoji 😀', n: 1 };
    expect(fieldsOf(() => checkBodyText(body)).sort()).toEqual(['events.1', 'text', 'to.email']);
  });
  it('refuses __proto__, constructor and prototype as unknown properties', () => {
    const body = JSON.parse('{"__proto__":{},"a":{"constructor":1,"b":[{"prototype":null}]}}');
    expect(fieldsOf(() => checkBodyText(body)).sort()).toEqual(['__proto__', 'a.b.0.prototype', 'a.constructor']);
  });
  it('lets ordinary bodies through', () => {
    expect(fieldsOf(() => checkBodyText({ text: 'line\nbreak\ttab', list: [1, null, true] }))).toEqual([]);
    expect(fieldsOf(() => checkBodyText(undefined))).toEqual([]);
  });
});

describe('checkUrlText', () => {
  it('names path ids and query parameters with control characters or unpaired surrogates', () => {
    const query = new URLSearchParams('cursor=a%00&ok=1&bad%01=x');
    expect(fieldsOf(() => checkUrlText({ id: 'a\u0000b', other: 'm_1' }, query, 64))).toEqual(['id', 'cursor', 'bad\u0001']);
    expect(fieldsOf(() => checkUrlText({ id: 'x\ud800' }, new URLSearchParams(), 64))).toEqual(['id']);
  });
  it('names path ids over the length limit', () => {
    expect(fieldsOf(() => checkUrlText({ id: 'a'.repeat(65) }, new URLSearchParams(), 64))).toEqual(['id']);
  });
});
