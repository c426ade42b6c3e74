import { randomBase62 } from '#platform/contracts';
import { api, createTestApp, expectStatus, http, inParallel, type HttpResult } from '#platform/testing';

/**
 * Anonymous traffic stops at the gate (architecture section 3, step 4): failed authentication is limited per
 * client address before the key is looked up, so a flood of random keys never reaches Postgres, while
 * a key already known valid keeps working from the same address. The test stack trusts 127.0.0.1 as a
 * proxy (TRUSTED_PROXIES), so each test is a client of its own address through X-Forwarded-For.
 */
const adminOrigin = () => process.env.TEST_ADMIN_URL!.replace('/admin/v1', '');

async function keyLookups(): Promise<number> {
  const text = (await http<string>(`${adminOrigin()}/metrics`)).body;
  return Number(/gateway_api_key_db_lookups_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? NaN);
}

let lastOctet = 0;
/** A documentation address (RFC 5737) no other test uses (every run starts from an empty database). */
function clientAddress(): string {
  return `198.51.100.${++lastOctet}`;
}

const randomKey = () => 'qk_sb_' + randomBase62(32);
const from = (address: string) => ({ 'x-forwarded-for': address });
const count = (answers: HttpResult[], status: number) => answers.filter((a) => a.status === status).length;

describe('failed authentication is limited per client address (e2e)', () => {
  it('a flood of random well-formed keys is refused with 429 before any key lookup once the address is over its limit', async () => {
    const address = clientAddress();
    const before = await keyLookups();
    const started = Date.now();
    const answers = await inParallel(
      Array.from({ length: 120 }, () => randomKey()),
      10,
      (key) => api('GET', '/ping', key, undefined, from(address)),
    );
    const elapsedSeconds = (Date.now() - started) / 1000;
    const lookups = (await keyLookups()) - before;
    const failed = count(answers, 401);
    const limited = answers.filter((a) => a.status === 429);
    expect(failed + limited.length).toBe(answers.length);
    expect(limited.length).toBeGreaterThan(0);
    const refusal = limited[0];
    expect(refusal.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refusal.headers.get('ratelimit-remaining')).toBe('0');
    // The limit: its burst, plus what it refilled while the flood ran (one a second by default).
    const burst = Number(refusal.headers.get('ratelimit-limit'));
    expect(failed).toBeLessThanOrEqual(burst + Math.ceil(elapsedSeconds) + 1);
    // Only the 401s looked a key up; no refused request reached Postgres.
    expect(lookups).toBe(failed);

    const during = await keyLookups();
    const more = await inParallel(
      Array.from({ length: 40 }, () => randomKey()),
      10,
      (key) => api('GET', '/ping', key, undefined, from(address)),
    );
    expect((await keyLookups()) - during).toBe(count(more, 401));
    expect(count(more, 429)).toBeGreaterThanOrEqual(more.length - 3);
  });

  it('malformed keys and missing keys count as failures too', async () => {
    const address = clientAddress();
    const answers = await inParallel(
      Array.from({ length: 80 }, (_, i) => i),
      10,
      (i) => api('GET', '/ping', i % 2 === 0 ? 'qk_sb_short' : null, undefined, from(address)),
    );
    expect(count(answers, 401)).toBeGreaterThan(0);
    expect(count(answers, 429)).toBeGreaterThan(0);
  });

  it('a key already known valid keeps working from the flooded address; other addresses are not limited', async () => {
    const address = clientAddress();
    const app = await createTestApp();
    expectStatus(await api('GET', '/ping', app.sandboxKey, undefined, from(address)), 200);
    const flood = await inParallel(
      Array.from({ length: 80 }, () => randomKey()),
      10,
      (key) => api('GET', '/ping', key, undefined, from(address)),
    );
    expect(count(flood, 429)).toBeGreaterThan(0);
    // Interleaved with the flood still under way: every request of the valid key is answered.
    const mixed = await inParallel(
      Array.from({ length: 40 }, (_, i) => i),
      8,
      (i) => (i % 4 === 0 ? api('GET', '/ping', app.sandboxKey, undefined, from(address)) : api('GET', '/ping', randomKey(), undefined, from(address))),
    );
    expect(mixed.filter((_, i) => i % 4 === 0).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(count(mixed, 429)).toBeGreaterThan(0);
    const elsewhere = await api('GET', '/ping', randomKey(), undefined, from(clientAddress()));
    expect(elsewhere.status).toBe(401);
  });

  it('a burst of a new valid key is charged once, not per request, from an address with failures behind it', async () => {
    // The requests arrive before any of them has looked the key up, so none knows it valid yet: the
    // first is charged and looks it up, the rest wait for its answer instead of each taking a token
    // the address has few of left.
    const address = clientAddress();
    const app = await createTestApp();
    const failures = await inParallel(
      Array.from({ length: 25 }, () => randomKey()),
      5,
      (key) => api('GET', '/ping', key, undefined, from(address)),
    );
    expect(count(failures, 401)).toBe(25);
    const before = await keyLookups();
    const answers = await Promise.all(Array.from({ length: 120 }, () => api('GET', '/ping', app.sandboxKey, undefined, from(address))));
    expect(answers.map((a) => a.status)).toEqual(Array(120).fill(200));
    expect((await keyLookups()) - before).toBe(1);
  });

  it('without a trusted proxy in between, X-Forwarded-For is not believed', async () => {
    // The stack trusts only 127.0.0.1; a forwarded chain naming a proxy it does not trust is judged by
    // the last untrusted hop, so rotating the first address does not give fresh buckets.
    const proxy = clientAddress();
    const answers = await inParallel(
      Array.from({ length: 80 }, (_, i) => i),
      10,
      (i) => api('GET', '/ping', randomKey(), undefined, { 'x-forwarded-for': `203.0.113.${i % 250}, ${proxy}` }),
    );
    expect(count(answers, 429)).toBeGreaterThan(0);
  });
});
