import { createTestApp, eventually, publicUrl } from '#platform/testing';
import { MAX_LISTEN_STREAMS_PER_APP } from './listen-streams';

/** Opens GET /listen and returns once its headers arrived; abort() ends it. */
async function openStream(key: string): Promise<{ status: number; headers: Headers; body: unknown; abort: () => void }> {
  const controller = new AbortController();
  const res = await fetch(`${publicUrl()}/listen`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  const body = res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : undefined;
  return { status: res.status, headers: res.headers, body, abort: () => controller.abort() };
}

describe('GET /listen holds a bounded number of streams per app (e2e)', () => {
  it(`refuses a stream beyond ${MAX_LISTEN_STREAMS_PER_APP} with 429 rate_limited and Retry-After, and takes one again once a stream's last poll has returned`, async () => {
    const app = await createTestApp();
    const other = await createTestApp();
    const open = [];
    for (let i = 0; i < MAX_LISTEN_STREAMS_PER_APP; i++) open.push(await openStream(app.sandboxKey));
    expect(open.map((s) => s.status)).toEqual(open.map(() => 200));
    try {
      const refused = await openStream(app.sandboxKey);
      expect({ status: refused.status, code: (refused.body as { error: { code: string } }).error.code }).toEqual({ status: 429, code: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another app is not affected.
      const others = await openStream(other.sandboxKey);
      expect(others.status).toBe(200);
      others.abort();
      open.pop()!.abort();
      const again = await eventually(async () => {
        const attempt = await openStream(app.sandboxKey);
        if (attempt.status === 200) return attempt;
        return null;
      }, 20_000);
      open.push(again);
    } finally {
      for (const stream of open) stream.abort();
    }
  });
});
