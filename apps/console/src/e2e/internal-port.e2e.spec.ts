import { CONSOLE, CONSOLE_INTERNAL } from './console-visitor.test-helpers';

/**
 * The console's public port serves people (through the ingress); its health, readiness and metrics
 * are on an internal port of their own, which probes and Prometheus reach and the ingress does not.
 */
async function get(url: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('console ports (e2e)', () => {
  it('answers /metrics, /readyz and /healthz 404 on the public port', async () => {
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      const answer = await get(CONSOLE + path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body).not.toContain('http_request_duration_seconds');
    }
    // The pages are still there.
    expect((await get(CONSOLE + '/')).status).toBe(200);
  });

  it('answers them 200 on the internal port, which serves no page', async () => {
    const metrics = await get(CONSOLE_INTERNAL + '/metrics');
    expect([metrics.status, metrics.type]).toEqual([200, expect.stringContaining('text/plain')]);
    expect(metrics.body).toContain('http_request_duration_seconds');
    const ready = await get(CONSOLE_INTERNAL + '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ ok: true, service: 'console', checks: { postgres: true, kafka: true } });
    expect((await get(CONSOLE_INTERNAL + '/healthz')).status).toBe(200);
    expect((await get(CONSOLE_INTERNAL + '/')).status).toBe(404);
    expect((await get(CONSOLE_INTERNAL + '/apps')).status).toBe(404);
  });
});
