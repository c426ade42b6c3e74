import { listenSigningSecret } from './listen-secret';

describe('listenSigningSecret', () => {
  it('is whsec_ and 32 base62 characters, the same for a key on every call', () => {
    const secret = listenSigningSecret('server-secret', 'key_01JABC');
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(listenSigningSecret('server-secret', 'key_01JABC')).toBe(secret);
  });

  it('differs between keys and between server secrets', () => {
    const secrets = new Set(['key_1', 'key_2', 'key_3'].map((key) => listenSigningSecret('server-secret', key)));
    expect(secrets.size).toBe(3);
    expect(listenSigningSecret('other-server-secret', 'key_1')).not.toBe(listenSigningSecret('server-secret', 'key_1'));
  });

  it('decodes as base64 after whsec_, as Standard Webhooks keys it', () => {
    const body = listenSigningSecret('server-secret', 'key_1').slice('whsec_'.length);
    expect(Buffer.from(body, 'base64').toString('base64')).toBe(body);
  });
});
