import { api, appWithTester, eventually, expectError, expectStatus, sendMessage, unique } from '@platform/testing';

describe('a saved send is replayed even when the app is rate limited (e2e)', () => {
  it('answers a retried Idempotency-Key from its saved result, not 429, while new sends get 429 rate_limited', async () => {
    const { app, appUserId } = await appWithTester();
    const body = { to: { appUserId }, type: 'text', text: 'saved before the flood' };
    const key = unique('idem-');
    const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
    // Empty the app's bucket.
    await eventually(async () => {
      const pings = await Promise.all(Array.from({ length: 50 }, () => api('GET', '/ping', app.sandboxKey)));
      return pings.some((p) => p.status === 429);
    }, 20_000, 0);
    const fresh = await sendMessage(app.sandboxKey, body, unique('idem-'));
    expectError(fresh, 429, 'rate_limited');
    const retried = await sendMessage(app.sandboxKey, body, key);
    expect({ status: retried.status, replayed: retried.headers.get('idempotent-replayed'), id: retried.body.id }).toEqual({ status: 202, replayed: 'true', id: first.body.id });
    // The same key with another body is not a replay: still limited.
    expectError(await sendMessage(app.sandboxKey, { ...body, text: 'another body' }, key), 429, 'rate_limited');
  });
});
