import type { ChildProcess } from 'node:child_process';
import { eventually, spawnApp, stopProcess, ThrowawayPostgres, waitReady } from '#platform/testing';

/**
 * A Postgres outage of any length: messaging on a database cluster of the test's own, which is
 * stopped (as a crash would: no goodbye to the clients) for longer than any backoff and started again.
 */
const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);
const APP_PORT = BASE_PORT + 91;
const PG_PORT = BASE_PORT + 92;

async function readyz(): Promise<{ status: number; body: { checks?: Record<string, boolean> } } | null> {
  const res = await fetch(`http://127.0.0.1:${APP_PORT}/readyz`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
  return res ? { status: res.status, body: (await res.json()) as { checks?: Record<string, boolean> } } : null;
}

describe('Postgres outage (e2e)', () => {
  let postgres: ThrowawayPostgres;
  let messaging: ChildProcess;

  beforeAll(async () => {
    postgres = new ThrowawayPostgres(PG_PORT);
    postgres.start();
    // Topics and groups of its own: this replica must not take the test stack's requests.
    messaging = spawnApp('messaging', APP_PORT, {
      logName: 'test-messaging-postgres-outage',
      env: { DATABASE_URL: postgres.url, KAFKA_NAMESPACE: `${process.env.KAFKA_NAMESPACE ?? ''}pgoutage.` },
    });
    await waitReady(`http://127.0.0.1:${APP_PORT}/readyz`, messaging, 90_000);
  });
  afterAll(async () => {
    if (messaging) await stopProcess(messaging);
    postgres?.destroy();
  });

  it('answers /readyz 503 while Postgres is down, stays up through a 12 s outage and is ready within seconds of its return', async () => {
    postgres.stop('immediate');
    const down = await eventually(async () => {
      const r = await readyz();
      return r?.status === 503 ? r : null;
    }, 5_000);
    expect(down.body.checks).toMatchObject({ postgres: false });

    // Longer than the reconnect backoffs of the pools and the LISTEN connections; the answer stays a prompt 503.
    const outageEnds = Date.now() + 12_000;
    while (Date.now() < outageEnds) {
      expect(messaging.exitCode).toBeNull();
      const started = Date.now();
      expect((await readyz())?.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(2_500);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    postgres.start();
    const back = Date.now();
    await eventually(async () => ((await readyz())?.status === 200 ? true : null), 10_000, 100);
    expect(Date.now() - back).toBeLessThan(5_000);
    expect(messaging.exitCode).toBeNull();
  });
});
