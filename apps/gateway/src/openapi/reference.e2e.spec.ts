import { readFileSync } from 'node:fs';
import path from 'node:path';
import { publicUrl } from '#platform/testing';

const committed = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../docs/openapi.json'), 'utf8'));

describe('the API reference (e2e)', () => {
  it('serves the OpenAPI document without a key, the same as docs/openapi.json, with an ETag', async () => {
    const res = await fetch(`${publicUrl()}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('svc-request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual(committed);
    const again = await fetch(`${publicUrl()}/openapi.json`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('serves the reference page and its renderer from the gateway itself, nothing from elsewhere', async () => {
    const page = await fetch(`${publicUrl()}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('spec-url="openapi.json"');
    // Every script, style and link is relative: no CDN.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = /<script src="([^"]+)"/.exec(html)![1];
    const bundle = await fetch(new URL(script, `${publicUrl()}/docs`));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  it('answers the document only to GET and HEAD; other methods are unknown routes', async () => {
    expect((await fetch(`${publicUrl()}/openapi.json`, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(`${publicUrl()}/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });
});
