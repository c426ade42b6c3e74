import {
  addTester,
  admin,
  adminUrl,
  advanceClock,
  api,
  eventually,
  expectStatus,
  inParallel,
  queryDatabase,
  sendMessage,
  unique,
  type TestApp,
} from '#platform/testing';
import { signedInVisitor, type Visitor } from './console-visitor.test-helpers';

/** A sandbox app whose first owner is `owner`, with one sandbox key (its prefix too). */
async function consoleApp(owner: string, displayName: string): Promise<TestApp & { keyPrefix: string }> {
  const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
  const app = expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName, creatorEmail: owner }), 201).body;
  const key = expectStatus(await admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' }), 201).body;
  return { orgId: org.id, appId: app.id, sandboxKey: key.key, sandboxKeyId: key.id, keyPrefix: key.key.slice(0, 'qk_sb_'.length + 4) };
}

const rowsOf = async (requestIds: string[]) =>
  queryDatabase<{ request_id: string; app_id: string }>(
    `select x.v->>0 as request_id, b.app_id from gateway.request_log_batches b, json_array_elements(b.entries) as x(v) where x.v->>0 = any($1)`,
    [requestIds],
  );

/** The request ids a list page shows, in its order. */
const listed = (body: string) => [...body.matchAll(/<a href="\/apps\/[^/]+\/requests\/(req_[A-Za-z0-9]+)"/g)].map((m) => m[1]);

/** Waits until the page at `path` lists every one of `requestIds` (the gateway writes its log in batches, off the request path). */
async function listing(visitor: Visitor, path: string, requestIds: string[]): Promise<string[]> {
  return eventually(async () => {
    const page = await visitor.request('GET', path);
    const ids = listed(page.body);
    return requestIds.every((id) => ids.includes(id)) ? ids : null;
  }, 15_000);
}

/**
 * The request log through HTTP (architecture section 12): the gateway records every request of an
 * app's keys, answered or refused, and the console shows them to the app's members only, filtered,
 * paged, and one by one with the envelope of a refusal; rows go after 7 days.
 */
describe('console: request log (e2e)', () => {
  it("shows an app's requests and refusals to its members only, filters and pages them, and prunes them after 7 days", async () => {
    const ownerA = `${unique('owner.')}@requests.example`;
    const ownerB = `${unique('owner.')}@requests.example`;
    const [appA, appB] = await Promise.all([consoleApp(ownerA, 'Requests A'), consoleApp(ownerB, 'Requests B')]);
    const { appUserId } = await addTester(appA);

    const sent = expectStatus(await sendMessage(appA.sandboxKey, { to: { appUserId }, type: 'text', text: 'hello' }), 202);
    const invalid = await sendMessage(appA.sandboxKey, { to: { appUserId }, type: 'text', text: 'hello', colour: 'blue' });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'invalid_request']);
    const refusedId: string = invalid.body.error.requestId;
    expect(invalid.headers.get('svc-request-id')).toBe(refusedId);
    // Refused before the key is read, by a key this gateway knows: still the app's.
    const noRoute = await api('GET', '/no-such-route', appA.sandboxKey);
    expect([noRoute.status, noRoute.body.error.code]).toEqual([404, 'route_not_found']);
    // A key nobody knows names no app: nobody's log holds it.
    const unknown = await api('GET', '/consents', `qk_sb_${'x'.repeat(32)}`);
    expect(unknown.status).toBe(401);
    const ofB = expectStatus(await api('GET', '/consents', appB.sandboxKey), 200);
    const ids = {
      sent: sent.headers.get('svc-request-id')!,
      refused: refusedId,
      noRoute: noRoute.headers.get('svc-request-id')!,
      unknown: unknown.headers.get('svc-request-id')!,
      ofB: ofB.headers.get('svc-request-id')!,
    };

    const visitorA = await signedInVisitor(ownerA);
    const visitorB = await signedInVisitor(ownerB);
    const all = await listing(visitorA, `/apps/${appA.appId}/requests`, [ids.sent, ids.refused, ids.noRoute]);
    expect(all).not.toContain(ids.ofB);
    expect(all.indexOf(ids.noRoute)).toBeLessThan(all.indexOf(ids.refused));
    expect(all.indexOf(ids.refused)).toBeLessThan(all.indexOf(ids.sent));
    expect(await listing(visitorB, `/apps/${appB.appId}/requests`, [ids.ofB])).toEqual([ids.ofB]);
    expect(await rowsOf([ids.unknown])).toEqual([]);

    // The list shows each request's facts, the key by its prefix only.
    const page = await visitorA.request('GET', `/apps/${appA.appId}/requests`);
    const refusedRow = new RegExp(
      `<td data-label="Method">POST</td>\\s*<td data-label="Path"><code>/platform/v1/messages</code></td>\\s*<td data-label="Status">400</td>\\s*<td data-label="Error">invalid_request</td>\\s*<td data-label="Key"><code>${appA.keyPrefix}</code></td>\\s*<td data-label="Duration">[\\d.]+ ms</td>\\s*<td data-label="Request id"><a href="/apps/${appA.appId}/requests/${refusedId}">`,
    );
    expect(page.body).toMatch(refusedRow);
    expect(page.body).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" title="[^"]+ UTC">/);
    expect(page.body).not.toContain(appA.sandboxKey);

    // Filters: status class, path (exact or prefix), key.
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?status=4xx`)).body)).toEqual([ids.noRoute, ids.refused]);
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?status=2xx`)).body)).toEqual([ids.sent]);
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?path=/messages&match=exact`)).body)).toEqual([ids.refused, ids.sent]);
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?path=/no-such&match=prefix`)).body)).toEqual([ids.noRoute]);
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?key=${appA.keyPrefix}&status=2xx`)).body)).toEqual([ids.sent]);
    expect(listed((await visitorA.request('GET', `/apps/${appA.appId}/requests?key=qk_sb_None`)).body)).toEqual([]);
    expect((await visitorA.request('GET', `/apps/${appA.appId}/requests?key=not-a-key`)).status).toBe(400);

    // The refusal by the requestId of its envelope, with the envelope as the client got it.
    const detail = await visitorA.request('GET', `/apps/${appA.appId}/requests/${refusedId}`);
    expect(detail.status).toBe(200);
    const shown = /<pre aria-label="Error envelope"><code>([\s\S]*?)<\/code><\/pre>/.exec(detail.body)?.[1];
    const unescaped = shown
      ?.replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    // Member for member, in the order the client got them.
    expect(unescaped).toBe(JSON.stringify(invalid.body, null, 2));
    // A success keeps no body.
    expect((await visitorA.request('GET', `/apps/${appA.appId}/requests/${ids.sent}`)).body).not.toContain('Error envelope');

    // Another app's people see none of it: not its requests, not the list.
    expect((await visitorB.request('GET', `/apps/${appB.appId}/requests/${refusedId}`)).status).toBe(404);
    expect((await visitorB.request('GET', `/apps/${appA.appId}/requests`)).status).toBe(404);
    expect((await visitorB.request('GET', `/apps/${appA.appId}/requests/${refusedId}`)).status).toBe(404);

    // Paging: 50 a page, newest first, the next page goes on where the first ended.
    const more = await inParallel(
      Array.from({ length: 50 }, (_, i) => i),
      8,
      async () => expectStatus(await api('GET', '/consents', appA.sandboxKey), 200).headers.get('svc-request-id')!,
    );
    await eventually(async () => ((await rowsOf([...more, ids.sent])).length === 51 ? true : null), 15_000);
    const firstPage = await visitorA.request('GET', `/apps/${appA.appId}/requests`);
    const next = /<a href="([^"]+)" rel="next">Older requests<\/a>/.exec(firstPage.body)?.[1].replace(/&amp;/g, '&');
    expect(listed(firstPage.body)).toHaveLength(50);
    const secondPage = listed((await visitorA.request('GET', next!)).body);
    expect([...listed(firstPage.body), ...secondPage].sort()).toEqual([...more, ids.sent, ids.refused, ids.noRoute].sort());

    // A revoked key still names its app: its 401s are in the app's log, with its prefix.
    expectStatus(await admin('DELETE', `/apps/${appA.appId}/keys/${appA.sandboxKeyId}`), 200);
    // A 401 whose lookup met the revocation's event in flight finds the key in no cache (ADR 0217): the next ones do.
    const revokedId = await eventually(async () => {
      const res = await api('GET', '/consents', appA.sandboxKey);
      if (res.status !== 401) return null;
      const id: string = res.body.error.requestId;
      return (await eventually(async () => ((await rowsOf([id])).length > 0 ? true : null), 1_000).catch(() => false)) ? id : null;
    }, 15_000);
    await listing(visitorA, `/apps/${appA.appId}/requests?status=4xx&key=${appA.keyPrefix}`, [revokedId]);
    expect((await visitorA.request('GET', `/apps/${appA.appId}/requests/${revokedId}`)).body).toContain('401 invalid_api_key');

    // What the gateway wrote and dropped is on its metrics.
    const metrics = await (await fetch(`${new URL(adminUrl()).origin}/metrics`)).text();
    expect(Number(/^gateway_request_log_written_total\{[^}]*\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(
      [ids.sent, ids.refused, ids.noRoute, ids.ofB, revokedId, ...more].length,
    );
    expect(metrics).toContain('# TYPE gateway_request_log_dropped_total counter');

    // Seven days on, the rows are gone.
    await advanceClock(8 * 24 * 3600);
    await eventually(async () => ((await rowsOf([ids.sent, ids.refused, ids.noRoute, ids.ofB, revokedId, ...more])).length === 0 ? true : null), 15_000);
  }, 90_000);
});
