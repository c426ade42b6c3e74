import type { ChildProcess } from 'node:child_process';
import { randomBase62 } from '#platform/contracts';
import { createTestApp, http, inParallel, spawnApp, stopProcess, waitReady, type HttpResult, type TestApp } from '#platform/testing';

/**
 * Limits hold for the whole platform, not per replica: three gateways (the stack's and two more, all
 * with the default limits) serve one app, one client address and one app's uploads at once.
 */
const base = Number(process.env.TEST_BASE_PORT ?? 4000);
const gateways = [base, base + 90, base + 92];
const started: ChildProcess[] = [];
const url = (g: number, path: string) => `http://127.0.0.1:${gateways[g]}/platform/v1${path}`;
const count = (answers: HttpResult[], status: number) => answers.filter((a) => a.status === status).length;

async function keyLookups(g: number): Promise<number> {
  const text = (await http<string>(`http://127.0.0.1:${gateways[g] + 1}/metrics`)).body;
  return Number(/gateway_api_key_db_lookups_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? NaN);
}

describe('rate limits across 3 gateway replicas (e2e)', () => {
  beforeAll(async () => {
    const extra = gateways.slice(1).map((port) => {
      const child = spawnApp('gateway', port, { logName: `test-limits-gateway-${port}` });
      started.push(child);
      return waitReady(`http://127.0.0.1:${port + 1}/readyz`, child);
    });
    await Promise.all(extra);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map(stopProcess));
  });

  it('one app driven through all three gateways gets its burst plus its rate, within a few percent', async () => {
    const app = await createTestApp();
    const auth = { authorization: `Bearer ${app.sandboxKey}` };
    // Every replica knows the key first, so the run measures the limiter, not the key cache.
    const first = await Promise.all([0, 1, 2].map((g) => http(url(g, '/ping'), { headers: auth })));
    const limit = Number(first[0].headers.get('ratelimit-limit'));
    const durationMs = 3000;
    const startedAt = Date.now();
    const answers: HttpResult[] = [...first];
    await Promise.all(
      Array.from({ length: 24 }, async (_, worker) => {
        for (let i = 0; Date.now() - startedAt < durationMs; i++) answers.push(await http(url((worker + i) % 3, '/ping'), { headers: auth }));
      }),
    );
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    const ok = count(answers, 200);
    expect(ok + count(answers, 429)).toBe(answers.length);
    // The documented default: 100 requests a second, burst 200.
    const allowance = limit + 100 * elapsedSeconds;
    expect(ok).toBeLessThanOrEqual(allowance * 1.03);
    expect(ok).toBeGreaterThanOrEqual(allowance * 0.95);
    // Far more was asked for than allowed, on every replica.
    expect(answers.length).toBeGreaterThan(allowance * 1.5);
  }, 30_000);

  it('failed authentication from one address is limited across all three gateways, before any key lookup', async () => {
    const from = { 'x-forwarded-for': '192.0.2.10' };
    const before = await Promise.all([0, 1, 2].map(keyLookups));
    const startedAt = Date.now();
    const answers = await inParallel(
      Array.from({ length: 180 }, (_, i) => i),
      12,
      (i) => http(url(i % 3, '/ping'), { headers: { ...from, authorization: `Bearer qk_sb_${randomBase62(32)}` } }),
    );
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    const after = await Promise.all([0, 1, 2].map(keyLookups));
    const failed = count(answers, 401);
    const limited = answers.filter((a) => a.status === 429);
    expect(failed + limited.length).toBe(answers.length);
    expect(limited.length).toBeGreaterThan(0);
    const burst = Number(limited[0].headers.get('ratelimit-limit'));
    // One bucket for the platform: its burst and refill, not three times that.
    expect(failed).toBeLessThanOrEqual(burst + Math.ceil(elapsedSeconds) + 1);
    expect(after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)).toBe(failed);
  });

  it('the media upload limit (D14) holds across replicas: 100 uploads an hour, whichever gateway takes them', async () => {
    const app: TestApp = await createTestApp();
    const body = { fileName: 'a.png', mimeType: 'image/png', size: 10 };
    const answers = await inParallel(
      Array.from({ length: 120 }, (_, i) => i),
      12,
      (i) => http(url(i % 3, '/media'), { method: 'POST', headers: { authorization: `Bearer ${app.sandboxKey}` }, body }),
    );
    expect(count(answers, 201)).toBe(100);
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.error.code])).toEqual(Array(20).fill([429, 'media_rate_limited']));
  }, 60_000);
});
