import { outgoingHeaders, sentHeaders } from './outgoing-headers';

describe('outgoingHeaders', () => {
  const body = Buffer.from('{"id":"evt_1"}');

  it('adds Host, Content-Length and Connection to the defaults and the signed headers, in the order written', () => {
    const headers = outgoingHeaders({
      defaults: { 'Content-Type': 'application/json', 'User-Agent': 'Svc-Webhooks/1.0' },
      headers: { 'Svc-Signature': 't=1,v1=ab', 'webhook-id': 'evt_1' },
      body,
      hostname: 'hooks.example.com',
    });
    expect(sentHeaders(headers)).toEqual([
      { name: 'Content-Type', value: 'application/json' },
      { name: 'User-Agent', value: 'Svc-Webhooks/1.0' },
      { name: 'Svc-Signature', value: 't=1,v1=ab' },
      { name: 'webhook-id', value: 'evt_1' },
      { name: 'Content-Length', value: String(body.length) },
      { name: 'Host', value: 'hooks.example.com' },
      { name: 'Connection', value: 'keep-alive' },
    ]);
  });

  it("lets the caller's headers replace a default case-insensitively, never Host or Content-Length", () => {
    const headers = outgoingHeaders({
      defaults: { 'Content-Type': 'application/json' },
      headers: { 'content-type': 'text/plain', host: 'evil.example', 'content-length': '1' },
      body,
      hostname: 'hooks.example.com',
    });
    expect(headers).toEqual({ 'content-type': 'text/plain', 'Content-Length': String(body.length), Host: 'hooks.example.com', Connection: 'keep-alive' });
  });

  it('has no Content-Length without a body', () => {
    expect(outgoingHeaders({ defaults: {}, headers: {}, hostname: 'h.example' })).toEqual({ Host: 'h.example', Connection: 'keep-alive' });
  });
});
