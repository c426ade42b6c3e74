import { appWithTester, eventually, queryDatabase, sendMessage, simSendText, unique } from '#platform/testing';

const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);
/** Each app's /readyz port (tools/dev/stack.mjs: the base port plus its offset; the gateway's on its admin port). */
const READY_PORTS: Record<string, number> = { gateway: 1, messaging: 10, consent: 20, media: 30, profile: 40, 'webhook-dispatcher': 50, 'chat-sim': 60 };

/** Ends every connection the services hold to the test database (57P01, as a Postgres restart or failover does). */
async function terminateServiceBackends(): Promise<number> {
  const rows = await queryDatabase<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = current_database() and usename like 'svc\\_%' and pid <> pg_backend_pid()`,
  );
  return rows[0].n;
}

/** The app's process answers /healthz (by port: a crash test earlier in the run may have replaced a stack process). */
async function alive(app: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${BASE_PORT + READY_PORTS[app]}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
  return res?.status === 200;
}

async function dead(apps: string[]): Promise<string[]> {
  const answers = await Promise.all(apps.map(alive));
  return apps.filter((_, i) => !answers[i]);
}

async function ready(app: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${BASE_PORT + READY_PORTS[app]}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
  return res?.status === 200;
}

describe('Postgres connection faults (e2e)', () => {
  it('every service survives its connections being terminated again and again while it serves, and serves again', async () => {
    const { app, userId, appUserId } = await appWithTester();
    // The user writes first: an open window, so the sends are not business-initiated (capped at 3 a day).
    await simSendText(userId, app.appId);
    const apps = Object.keys(READY_PORTS);

    // Sends keep the relays and consumers busy (connections checked out) while the backends are cut.
    let faulting = true;
    const sending = (async () => {
      while (faulting) {
        await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'during faults' }).catch(() => null);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let terminated = 0;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      terminated += await terminateServiceBackends();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    faulting = false;
    await sending;
    expect(terminated).toBeGreaterThan(20);

    expect(await dead(apps)).toEqual([]);
    await eventually(async () => ((await Promise.all(apps.map(ready))).every(Boolean) ? true : null), 15_000, 200);
    let last: unknown = null;
    const sent = await eventually(async () => {
      const res = await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'after faults' }, unique('idem-after-'));
      last = [res.status, res.body];
      return res.status === 202 ? res : null;
    }, 10_000).catch((error: Error) => {
      throw new Error(`${error.message}; last answer ${JSON.stringify(last)}`);
    });
    expect(sent.body.status).toBe('accepted');
    // Still alive once the reconnects are done (a late unhandled `error` event would have ended a process).
    expect(await dead(apps)).toEqual([]);
  });
});
