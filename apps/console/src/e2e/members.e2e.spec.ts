import { admin, eventually, expectStatus, unique } from '#platform/testing';

/** Members over HTTP: who may invite and remove, 404 for outsiders, the last owner stays. */
const CONSOLE = process.env.CONSOLE_URL ?? `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 2}`;
let nextAddress = Math.floor(Math.random() * 2 ** 22);

class Visitor {
  readonly cookies = new Map<string, string>();
  readonly address = ((n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`)(nextAddress++);

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
    const res = await fetch(CONSOLE + path, {
      method,
      redirect: 'manual',
      headers: {
        'x-forwarded-for': this.address,
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  }
}

const csrf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)![1];
const mailTo = async (address: string) => expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(address)}`), 200).body.data;

async function appOwnedBy(owner: string): Promise<string> {
  const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
  return expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName: 'Team', creatorEmail: owner }), 201).body.id;
}

/** Follows the newest emailed link matching `kind` ('sign-in' or 'invitations') and submits its form. */
async function follow(visitor: Visitor, email: string, kind: 'sign-in' | 'invitations', count = 1) {
  const mails = await eventually(async () => {
    const caught = await mailTo(email);
    return caught.filter((m: { text: string }) => m.text.includes(`/${kind}/`)).length >= count ? caught : null;
  }, 15_000);
  const path = new RegExp(`/${kind}/[A-Za-z0-9_-]+`).exec(mails.find((m: { text: string }) => m.text.includes(`/${kind}/`)).text)![0];
  const confirm = await visitor.request('GET', path);
  return visitor.request('POST', path, { csrf: csrf(confirm.body) });
}

async function signIn(email: string): Promise<Visitor> {
  const visitor = new Visitor();
  const before = (await mailTo(email)).filter((m: { text: string }) => m.text.includes('/sign-in/')).length;
  const home = await visitor.request('GET', '/');
  await visitor.request('POST', '/sign-in', { csrf: csrf(home.body), email });
  expect((await follow(visitor, email, 'sign-in', before + 1)).status).toBe(303);
  return visitor;
}

async function invite(visitor: Visitor, appId: string, email: string) {
  const list = await visitor.request('GET', `/apps/${appId}/members`);
  return visitor.request('POST', `/apps/${appId}/members`, { csrf: csrf(list.body), email });
}

describe('console members (e2e)', () => {
  it('an owner invites; the invitee joins by the link; members cannot invite; outsiders get 404', async () => {
    const owner = `${unique('owner.')}@team.example`;
    const member = `${unique('member.')}@team.example`;
    const outsider = `${unique('outsider.')}@team.example`;
    const appId = await appOwnedBy(owner);
    await appOwnedBy(outsider);

    const ownerVisitor = await eventually(() => signIn(owner).catch(() => null), 20_000);
    expect((await invite(ownerVisitor, appId, member)).location).toBe(`/apps/${appId}/members`);
    expect((await invite(ownerVisitor, appId, owner)).status).toBe(409);

    const memberVisitor = new Visitor();
    const joined = await follow(memberVisitor, member, 'invitations');
    expect([joined.status, joined.location]).toEqual([303, `/apps/${appId}`]);
    expect((await memberVisitor.request('GET', `/apps/${appId}`)).status).toBe(200);
    const list = await memberVisitor.request('GET', `/apps/${appId}/members`);
    expect(list.body).not.toContain('Email address to invite');
    expect((await memberVisitor.request('POST', `/apps/${appId}/members`, { csrf: csrf(list.body), email: `${unique('x.')}@team.example` })).status).toBe(403);
    // The invitation works once.
    expect((await follow(new Visitor(), member, 'invitations')).status).toBe(400);

    const outsiderVisitor = await signIn(outsider);
    expect((await outsiderVisitor.request('GET', `/apps/${appId}/members`)).status).toBe(404);
    const own = await outsiderVisitor.request('GET', '/apps');
    expect((await outsiderVisitor.request('POST', `/apps/${appId}/members`, { csrf: csrf(own.body), email: `${unique('y.')}@team.example` })).status).toBe(404);
    expect((await outsiderVisitor.request('POST', `/apps/${appId}/members/remove`, { csrf: csrf(own.body), email: member })).status).toBe(404);

    // Changes need the session's CSRF token.
    expect((await ownerVisitor.request('POST', `/apps/${appId}/members/remove`, { csrf: 'forged', email: member })).status).toBe(403);
    const ownerList = await ownerVisitor.request('GET', `/apps/${appId}/members`);
    expect((await ownerVisitor.request('POST', `/apps/${appId}/members/remove`, { csrf: csrf(ownerList.body), email: owner })).status).toBe(409);
    expect((await ownerVisitor.request('POST', `/apps/${appId}/members/remove`, { csrf: csrf(ownerList.body), email: member })).status).toBe(303);
    expect((await memberVisitor.request('GET', `/apps/${appId}`)).status).toBe(404);

    const overview = await ownerVisitor.request('GET', `/apps/${appId}`);
    for (const line of [`${owner} became owner`, `${owner} invited ${member}`, `${member} accepted the invitation`, `${owner} removed ${member}`]) {
      expect(overview.body).toContain(line);
    }
  });
});
