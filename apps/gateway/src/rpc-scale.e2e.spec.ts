import type { ChildProcess } from 'node:child_process';
import { admin, createTestApp, expectStatus, http, spawnApp, stopProcess as stop, waitReady, type TestApp } from '#platform/testing';

/**
 * Request/reply under the Kubernetes topology of issue 2: three gateway replicas and two (then three,
 * then two again) profile replicas at once. Every request is answered, by the right replica, with the
 * caller's own data, while the profile consumer group rebalances; a hung service gives 500 internal_error.
 */
const base = Number(process.env.TEST_BASE_PORT ?? 4000);
const started: ChildProcess[] = [];

function startApp(app: 'gateway' | 'profile', port: number, env: Record<string, string> = {}): ChildProcess {
  const child = spawnApp(app, port, { logName: `test-scale-${app}-${port}`, env });
  started.push(child);
  return child;
}

describe('Kafka request/reply with 3 gateway and 2+ profile replicas (e2e)', () => {
  const gateways = [base, base + 100, base + 200];
  let apps: TestApp[];
  let extraProfile: ChildProcess;

  beforeAll(async () => {
    const g2 = startApp('gateway', gateways[1], { RPC_TIMEOUT_MS: '5000', RATE_LIMIT_RPS: '10000', RATE_LIMIT_BURST: '10000' });
    const g3 = startApp('gateway', gateways[2], { RPC_TIMEOUT_MS: '5000', RATE_LIMIT_RPS: '10000', RATE_LIMIT_BURST: '10000' });
    extraProfile = startApp('profile', base + 140);
    await Promise.all([
      waitReady(`http://127.0.0.1:${gateways[1] + 1}/readyz`, g2),
      waitReady(`http://127.0.0.1:${gateways[2] + 1}/readyz`, g3),
      waitReady(`http://127.0.0.1:${base + 140}/readyz`, extraProfile),
    ]);
    apps = await Promise.all([createTestApp(), createTestApp(), createTestApp()]);
    for (const [i, app] of apps.entries()) {
      expectStatus(
        await http(`http://127.0.0.1:${gateways[0]}/platform/v1/business-profile`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${app.sandboxKey}` },
          body: { displayName: `Replica check ${i}` },
        }),
        200,
      );
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map(stop));
  });

  /** One request through gateway g for app a; returns whether the answer was the app's own profile. */
  async function check(g: number, a: number): Promise<string> {
    const res = await http(`http://127.0.0.1:${gateways[g]}/platform/v1/business-profile`, { headers: { authorization: `Bearer ${apps[a].sandboxKey}` } });
    if (res.status !== 200) return `HTTP ${res.status} ${JSON.stringify(res.body)}`;
    return res.body.appId === apps[a].appId && res.body.displayName === `Replica check ${a}` ? 'ok' : `wrong answer ${JSON.stringify(res.body)}`;
  }

  async function load(rounds: number): Promise<string[]> {
    const outcomes: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const batch = [];
      for (let g = 0; g < 3; g++) for (let a = 0; a < 3; a++) batch.push(check(g, a));
      outcomes.push(...(await Promise.all(batch)));
    }
    return outcomes;
  }

  it('answers every request on every gateway replica with the caller’s own data while the services rebalance', async () => {
    const during: Promise<string[]>[] = [load(40)];
    // A third profile replica joins (rebalance), then leaves again (rebalance) while the load runs.
    const third = startApp('profile', base + 150);
    await waitReady(`http://127.0.0.1:${base + 150}/readyz`, third);
    during.push(load(20));
    await stop(third);
    during.push(load(20));
    const outcomes = (await Promise.all(during)).flat();
    expect(outcomes.length).toBe(9 * 80);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
  }, 120_000);

  it('a key revoked through one replica stops working on every replica within a second', async () => {
    const own = await createTestApp();
    const ping = (g: number) => http(`http://127.0.0.1:${gateways[g]}/platform/v1/ping`, { headers: { authorization: `Bearer ${own.sandboxKey}` } });
    // Warm every replica's cache so the revocation has to reach it through gateway.events.
    for (let g = 0; g < 3; g++) expectStatus(await ping(g), 200);
    expectStatus(await admin('DELETE', `/apps/${own.appId}/keys/${own.sandboxKeyId}`), 200);
    const revokedAt = Date.now();
    const statuses = async () => Promise.all([0, 1, 2].map(async (g) => (await ping(g)).status));
    let last: number[] = await statuses();
    while (last.some((s) => s !== 401) && Date.now() - revokedAt < 1000) last = await statuses();
    expect(last).toEqual([401, 401, 401]);
  });

  it('a service that does not answer gives 500 internal_error in time, never a hang; then recovers', async () => {
    const pids: Record<string, number> = JSON.parse(process.env.TEST_STACK_PIDS ?? '{}');
    const profiles = [pids.profile, extraProfile.pid!];
    for (const pid of profiles) process.kill(pid, 'SIGSTOP');
    try {
      const startedAt = Date.now();
      const res = await http(`http://127.0.0.1:${gateways[1]}/platform/v1/business-profile`, { headers: { authorization: `Bearer ${apps[0].sandboxKey}` } });
      const elapsed = Date.now() - startedAt;
      expect(res.status).toBe(500);
      expect(res.body.error).toMatchObject({ code: 'internal_error', type: 'api_error' });
      expect(elapsed).toBeLessThan(10_000);
    } finally {
      for (const pid of profiles) process.kill(pid, 'SIGCONT');
    }
    const deadline = Date.now() + 20_000;
    let last = '';
    while (Date.now() < deadline && (last = await check(1, 0)) !== 'ok') await new Promise((resolve) => setTimeout(resolve, 100));
    expect(last).toBe('ok');
    expect((await admin('GET', `/apps/${apps[0].appId}`)).status).toBe(200);
  }, 60_000);
});
