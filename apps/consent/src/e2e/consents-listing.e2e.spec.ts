import {
  admin,
  api,
  createTestApp,
  createTestUser,
  expectStatus,
  inParallel,
  simAppAction,
  simSendText,
  type HttpResult,
  type TestApp,
} from '#platform/testing';

interface Consent {
  appUserId: string;
  status: string;
  updatedAt: string;
}

describe('GET /consents (e2e)', () => {
  let app: TestApp;
  let users: { userId: string; appUserId: string }[];

  beforeAll(async () => {
    app = await createTestApp();
    users = await inParallel(
      Array.from({ length: 250 }, (_, i) => i),
      10,
      async () => {
        const user = await createTestUser(app.orgId);
        const { appUserId } = await simSendText(user.id, app.appId);
        return { userId: user.id, appUserId };
      },
    );
  }, 120_000);

  const page = (query: string) => api<{ data: Consent[]; nextCursor: string | null }>('GET', `/consents${query}`, app.sandboxKey);

  async function listAll(limit: number, status?: string, duringEachPage?: () => Promise<void>) {
    const seen: Consent[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: URLSearchParams = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
      const res: HttpResult<{ data: Consent[]; nextCursor: string | null }> = expectStatus(await page(`?${qs}`), 200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
      pages++;
      if (duringEachPage) await duringEachPage();
    } while (cursor);
    return { seen, pages };
  }

  it('defaults to 20 per page, newest change first, then appUserId', async () => {
    const res = expectStatus(await page(''), 200);
    expect(res.body.data).toHaveLength(20);
    expect(typeof res.body.nextCursor).toBe('string');
    for (const consent of res.body.data) {
      expect(Object.keys(consent).sort()).toEqual(['appUserId', 'optedInAt', 'optedOutAt', 'ref', 'source', 'status', 'updatedAt']);
    }
    const { seen } = await listAll(100);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]];
      const ordered = a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.appUserId < b.appUserId);
      expect(ordered).toBe(true);
    }
  });

  it('pages through 250 consents with no duplicates or gaps while consents change underneath', async () => {
    const changing = users.slice(0, 60);
    const newcomers: string[] = [];
    let i = 0;
    // Between pages: stop some users (their consents jump to the front of the order) and add new ones.
    const churn = async () => {
      const batch = changing.slice(i, i + 6);
      i += 6;
      await Promise.all(batch.map((u) => simAppAction(u.userId, app.appId, 'stop').then((r) => expectStatus(r, 200))));
      const user = await createTestUser(app.orgId);
      newcomers.push((await simSendText(user.id, app.appId)).appUserId);
    };
    const { seen, pages } = await listAll(17, undefined, churn);
    expect(pages).toBe(Math.ceil(250 / 17));
    const ids = seen.map((c) => c.appUserId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(users.map((u) => u.appUserId)));
    // The listing is a snapshot of when it started: everyone was opted in then.
    expect(seen.every((c) => c.status === 'opted_in')).toBe(true);
    expect(newcomers.some((id) => ids.includes(id))).toBe(false);

    // A new listing sees the changes: the stopped users under opted_out, the newcomers opted in.
    const stopped = changing.slice(0, i).map((u) => u.appUserId);
    const optedOut = await listAll(7, 'opted_out');
    expect(new Set(optedOut.seen.map((c) => c.appUserId))).toEqual(new Set(stopped));
    const optedIn = await listAll(100, 'opted_in');
    expect(optedIn.seen).toHaveLength(250 - stopped.length + newcomers.length);
    expect(optedIn.seen.every((c) => c.status === 'opted_in')).toBe(true);
  }, 120_000);

  it("shows only the calling app's consents", async () => {
    const other = await createTestApp();
    expect(expectStatus(await api('GET', '/consents', other.sandboxKey), 200).body).toEqual({ data: [], nextCursor: null });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?status=pending', 'status'],
    ['?cursor=not-a-cursor', 'cursor'],
  ])('%s → 400 invalid_request on %s', async (query, field) => {
    const res = await page(query);
    expect({ status: res.status, code: (res.body as any).error?.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect((res.body as any).error.details.map((d: { field: string }) => d.field)).toEqual([field]);
  });

  it('a cursor works only with the filter it was made for', async () => {
    const first = expectStatus(await page('?limit=5&status=opted_in'), 200).body;
    const res = await page(`?limit=5&cursor=${first.nextCursor}`);
    expect(res.status).toBe(400);
    expect((res.body as any).error.details[0].field).toBe('cursor');
  });

  it('admin token is not an API key', async () => {
    expect((await api('GET', '/consents', 'test-admin-token')).status).toBe(401);
    expect((await admin('GET', '/consents')).status).toBe(404);
  });
});
