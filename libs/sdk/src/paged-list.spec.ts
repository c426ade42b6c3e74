import { fakeFetch, errorReply, type RecordedCall } from './fake-fetch.test-helpers';
import { PlatformClient } from './platform-client';
import { PlatformError } from './platform-error';

const BASE = 'https://api.example.test/platform/v1';
const consent = (n: number) => ({ appUserId: `u_${String(n).padStart(22, '0')}`, status: 'opted_in' });

/** Three pages of consents (2 + 2 + 1), answered by cursor. */
function threePages(call: RecordedCall) {
  const cursor = new URL(call.url).searchParams.get('cursor');
  if (cursor === null) return { status: 200, json: { data: [consent(1), consent(2)], nextCursor: 'c2' } };
  if (cursor === 'c2') return { status: 200, json: { data: [consent(3), consent(4)], nextCursor: 'c3' } };
  if (cursor === 'c3') return { status: 200, json: { data: [consent(5)], nextCursor: null } };
  return errorReply(400, 'invalid_request');
}

function client(script: Parameters<typeof fakeFetch>[0]) {
  const { fetch, calls } = fakeFetch(script);
  return { client: new PlatformClient({ apiKey: 'qk_sb_test', baseUrl: BASE, fetch, sleep: async () => undefined }), calls };
}

describe('paged lists', () => {
  it('iterates every item of every page with for await, following nextCursor and keeping the filters', async () => {
    const { client: c, calls } = client([threePages, threePages, threePages]);
    const seen: string[] = [];
    for await (const item of c.consents.list({ status: 'opted_in', limit: 2 })) seen.push(item.appUserId);
    expect(seen).toEqual([1, 2, 3, 4, 5].map((n) => consent(n).appUserId));
    expect(calls.map((call) => call.url.slice(BASE.length))).toEqual([
      '/consents?status=opted_in&limit=2',
      '/consents?status=opted_in&limit=2&cursor=c2',
      '/consents?status=opted_in&limit=2&cursor=c3',
    ]);
  });

  it('awaited, gives the first page only', async () => {
    const { client: c, calls } = client([threePages]);
    const page = await c.consents.list({ limit: 2 });
    expect(page).toEqual({ data: [consent(1), consent(2)], nextCursor: 'c2' });
    expect(page.lastResponse.status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('fetches nothing until used, pages lazily, and shares the first page between await and iteration', async () => {
    const { client: c, calls } = client([threePages, threePages, threePages]);
    const list = c.webhookDeliveries.list({ status: 'failed' });
    expect(calls).toHaveLength(0);
    await list;
    const first: string[] = [];
    for await (const item of list) {
      first.push((item as any).appUserId);
      if (first.length === 2) break;
    }
    // Breaking at the end of page one never asked for page two.
    expect(calls).toHaveLength(1);
    expect(await c.consents.list().toArray({ limit: 3 })).toHaveLength(3);
  });

  it('stops rather than loop when the API repeats a cursor', async () => {
    const loop = { status: 200, json: { data: [consent(1)], nextCursor: 'same' } };
    const { client: c, calls } = client([loop, loop, loop]);
    expect(await c.consents.list().toArray({ limit: 100 })).toHaveLength(2);
    expect(calls).toHaveLength(2);
  });

  it('rejects the iteration with the page’s error', async () => {
    const { client: c } = client([threePages, errorReply(401, 'invalid_api_key', { type: 'authentication_error' })]);
    const run = async () => {
      for await (const _item of c.consents.list()) void _item;
    };
    await expect(run()).rejects.toBeInstanceOf(PlatformError);
  });
});
