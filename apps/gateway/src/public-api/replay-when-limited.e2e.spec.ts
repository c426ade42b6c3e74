import { api, appWithTester, eventually, expectStatus, sendMessage, unique, type HttpResult } from '#platform/testing';

describe('a saved send is replayed even when the app is rate limited (e2e)', () => {
  it('answers a retried Idempotency-Key from its saved result, not 429, while new sends get 429 rate_limited', async () => {
    const { app, appUserId } = await appWithTester();
    const body = { to: { appUserId }, type: 'text', text: 'saved before the flood' };
    const key = unique('idem-');
    const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);

    // Keep the app's bucket empty: pings from ten callers, far above its refill, for the whole test.
    let flooding = true;
    let refused = 0;
    const flood = Promise.all(
      Array.from({ length: 10 }, async () => {
        while (flooding) if ((await api('GET', '/ping', app.sandboxKey)).status === 429) refused++;
      }),
    );
    try {
      await eventually(async () => refused > 20, 20_000);
      // Retries and new sends alternate until new sends have been refused six times. How often a refill token
      // slips through depends on how fast the flood runs on a loaded machine, so the count of rounds is not fixed:
      // a limiter that counted retries would have refused some of them by then as well.
      const retries: HttpResult[] = [];
      const fresh: HttpResult[] = [];
      const refusedFresh = () => fresh.filter((r) => r.status === 429 && r.body.error.code === 'rate_limited').length;
      while (refusedFresh() < 6 && fresh.length < 200) {
        retries.push(await sendMessage(app.sandboxKey, body, key));
        fresh.push(await sendMessage(app.sandboxKey, body, unique('idem-')));
      }
      // Every retry of the saved key is its saved answer, and the flood kept the bucket empty often enough.
      expect(retries.map((r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), id: r.body.id }))).toEqual(
        retries.map(() => ({ status: 202, replayed: 'true', id: first.body.id })),
      );
      expect(refusedFresh()).toBe(6);
      // The same key with another body is not a replay: it is limited like any new send (429), and what a refill
      // token lets through is refused as a reused key (422), never answered from the saved result.
      const other: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await sendMessage(app.sandboxKey, { ...body, text: 'another body' }, key);
        other.push(`${res.status} ${res.body.error?.code}`);
      }
      expect(other.every((answer) => answer === '429 rate_limited' || answer === '422 idempotency_key_reused')).toBe(true);
      expect(other.filter((answer) => answer === '429 rate_limited').length).toBeGreaterThan(0);
    } finally {
      flooding = false;
      await flood;
    }
  });
});
