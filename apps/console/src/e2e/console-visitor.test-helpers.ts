import { admin, eventually, expectStatus, unique } from '#platform/testing';

/** The test stack's console (stack port offset 2), as its emailed links name it. */
export const CONSOLE = process.env.CONSOLE_URL ?? `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 2}`;
/** Its internal port (the next one, tools/dev/stack.mjs): /healthz, /readyz and /metrics. */
export const CONSOLE_INTERNAL = `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 3}`;

/** Client addresses of this run: every visitor its own, so the per-client sign-in limit counts each apart. */
let nextAddress = Math.floor(Math.random() * 2 ** 22);

/** A browser of one person over plain HTTP: its cookies, and a client address of its own (through the trusted proxy, 127.0.0.1). */
export class Visitor {
  readonly cookies = new Map<string, string>();
  readonly address = ((n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`)(nextAddress++);
  lastSetCookies: string[] = [];

  /** A `csrf` field of `form` goes where the console's forms put it: in the action URL (changeAction), not the body. */
  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string | string[]>) {
    if (form && 'csrf' in form) {
      const { csrf, ...fields } = form;
      path = `${path}${path.includes('?') ? '&' : '?'}csrf=${encodeURIComponent(String(csrf))}`;
      form = fields;
    }
    const res = await fetch(CONSOLE + path, {
      method,
      redirect: 'manual',
      headers: {
        'x-forwarded-for': this.address,
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form
        ? new URLSearchParams(Object.entries(form).flatMap(([name, value]) => [value].flat().map((v): [string, string] => [name, v]))).toString()
        : undefined,
    });
    this.lastSetCookies = res.headers.getSetCookie();
    for (const header of this.lastSetCookies) {
      const [pair] = header.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location'), body: await res.text(), headers: res.headers };
  }
}

/** The CSRF token of the first form on a page (in its action URL). */
export function csrfOf(body: string): string {
  const match = /<form [^>]*action="[^"?]*\?csrf=([^"&]+)"/.exec(body);
  if (!match) throw new Error(`no CSRF token in a form action of: ${body.slice(0, 300)}`);
  return decodeURIComponent(match[1]);
}

/** A sandbox app whose creator (its first owner) is `owner`; its id. */
export async function appOwnedBy(owner: string, displayName = 'Widgets'): Promise<string> {
  const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
  return expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName, creatorEmail: owner }), 201).body.id;
}

/** What the local SMTP sink caught for an address, newest first. */
export const mailTo = async (address: string) => expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(address)}`), 200).body.data;

/** A visitor signed in as `email` through the emailed link (retried until the console knows the app's owner). */
export async function signedInVisitor(email: string): Promise<Visitor> {
  return eventually(async () => {
    const visitor = new Visitor();
    const home = await visitor.request('GET', '/');
    await visitor.request('POST', '/sign-in', { csrf: csrfOf(home.body), email });
    const mails = await mailTo(email);
    const link = mails.map((m: { text: string }) => /\/sign-in\/[A-Za-z0-9_-]+/.exec(m.text)?.[0]).find(Boolean);
    if (!link) return null;
    const confirm = await visitor.request('GET', link);
    const used = await visitor.request('POST', link, { csrf: csrfOf(confirm.body) });
    return used.status === 303 ? visitor : null;
  }, 20_000);
}

/** The invitation links emailed to `address`, newest first, once at least `count` arrived. */
export async function invitationLinks(address: string, count = 1): Promise<string[]> {
  return eventually(async () => {
    const links = (await mailTo(address)).map((m: { text: string }) => /\/invitations\/[A-Za-z0-9_-]+/.exec(m.text)?.[0]).filter(Boolean);
    return links.length >= count ? links : null;
  }, 15_000);
}

/** Opens an invitation link and accepts it, as the person it was sent to would. */
export async function acceptInvitation(visitor: Visitor, link: string) {
  const confirm = await visitor.request('GET', link);
  return visitor.request('POST', link, { csrf: csrfOf(confirm.body) });
}

/** Sends one of the members page's forms (`action` under /apps/<appId>/) with the session's CSRF token. */
export async function membersForm(visitor: Visitor, appId: string, action: string, email: string) {
  const list = await visitor.request('GET', `/apps/${appId}/members`);
  return visitor.request('POST', `/apps/${appId}/${action}`, { csrf: csrfOf(list.body), email });
}
