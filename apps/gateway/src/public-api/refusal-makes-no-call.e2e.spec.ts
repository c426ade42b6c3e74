import { api, appWithTester, eventually, expectStatus, http, inParallel, sendMessage, unique, type HttpResult, type TestApp } from '#platform/testing';

/**
 * The gateway pipeline, step 4: a request refused 429 makes no call to any service, so an app over its
 * limit cannot keep messaging busy for everyone. Counted on messaging's side, from its metrics: every
 * request it handles is one `rpc_server_duration_seconds` observation.
 */
const messagingMetrics = `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 10}/metrics`;

/** The requests messaging has handled of the operations a send without media causes (a send, a key lookup). */
async function sendCallsServed(): Promise<number> {
  const text = (await http<string>(messagingMetrics)).body;
  let served = 0;
  for (const m of text.matchAll(/^rpc_server_duration_seconds_count\{[^}]*op="messages\.(?:send|heldKey)"[^}]*\} (\d+)$/gm)) served += Number(m[1]);
  return served;
}

/** A refusal as the contract has it: 429 in the envelope, with Retry-After and the request's id. */
function refusal(res: HttpResult) {
  return {
    status: res.status,
    code: res.body?.error?.code,
    type: res.body?.error?.type,
    requestIdMatches: typeof res.body?.error?.requestId === 'string' && res.body.error.requestId === res.headers.get('svc-request-id'),
    retryAfter: /^[1-9]\d*$/.test(res.headers.get('retry-after') ?? ''),
  };
}
const REFUSED = { status: 429, code: 'rate_limited', type: 'rate_limit_error', requestIdMatches: true, retryAfter: true };

/** Keeps the app's bucket empty with pings from ten callers (pings call no service) until stopped. */
async function whileLimited<T>(app: TestApp, run: () => Promise<T>): Promise<T> {
  let flooding = true;
  let refused = 0;
  const flood = Promise.all(
    Array.from({ length: 10 }, async () => {
      while (flooding) if ((await api('GET', '/ping', app.sandboxKey)).status === 429) refused++;
    }),
  );
  try {
    await eventually(async () => refused > 20, 20_000);
    return await run();
  } finally {
    flooding = false;
    await flood;
  }
}

describe('a refused request makes no call to any service (e2e)', () => {
  it('answers fresh sends 429 rate_limited with Retry-After while the bucket is empty, and messaging serves none of them', async () => {
    const { app, appUserId } = await appWithTester();
    const body = { to: { appUserId }, type: 'text', text: 'one of many' };
    const { answers, calls } = await whileLimited(app, async () => {
      const before = await sendCallsServed();
      const answers = await inParallel(
        Array.from({ length: 40 }, (_, i) => i),
        4,
        () => sendMessage(app.sandboxKey, body, unique('idem-')),
      );
      return { answers, calls: (await sendCallsServed()) - before };
    });
    // A refill token now and then lets a send through to messaging (one call each, whatever it answers: 202, or
    // 429 business_initiated_cap past the user's three a day); every rate_limited refusal is the gateway's alone.
    const limited = answers.filter((res) => res.body?.error?.code === 'rate_limited');
    expect(limited.map(refusal)).toEqual(limited.map(() => REFUSED));
    expect(limited.length).toBeGreaterThanOrEqual(10);
    expect({ calls }).toEqual({ calls: answers.length - limited.length });
  });

  it('answers a saved key from the gateway’s own record while limited, without a call, and only so often', async () => {
    const { app, appUserId } = await appWithTester();
    const body = { to: { appUserId }, type: 'text', text: 'saved before the flood' };
    const key = unique('idem-');
    const first = expectStatus(await sendMessage(app.sandboxKey, body, key), 202);
    const burst = Number(first.headers.get('ratelimit-limit'));
    const { answers, calls, seconds } = await whileLimited(app, async () => {
      const before = await sendCallsServed();
      const started = Date.now();
      // One at a time: concurrent twins that find a refill token are messaging's 409 idempotency_in_progress.
      const answers: HttpResult[] = [];
      for (let i = 0; i < 80; i++) answers.push(await sendMessage(app.sandboxKey, body, key));
      return { answers, seconds: (Date.now() - started) / 1000, calls: (await sendCallsServed()) - before };
    });
    const replayed = answers.filter((res) => res.status === 202);
    const refused = answers.filter((res) => res.status !== 202);
    expect(replayed.map((res) => ({ replayed: res.headers.get('idempotent-replayed'), id: res.body.id }))).toEqual(
      replayed.map(() => ({ replayed: 'true', id: first.body.id })),
    );
    expect(refused.map(refusal)).toEqual(refused.map(() => REFUSED));
    // A retry that finds a refill token goes to messaging (one call, a replay); the others are answered by
    // the gateway alone, from a bucket of their own: a tenth of the app's burst, refilled at a tenth of its rate.
    const free = replayed.length - calls;
    expect(refused.length).toBeGreaterThan(0);
    expect(free).toBeGreaterThan(0);
    expect(free).toBeLessThanOrEqual(Math.ceil(burst / 10) + Math.ceil(10 * seconds) + 1);
  });
});
