import { eventually, unique } from '#platform/testing';
import { appOwnedBy, csrfOf as csrf, mailTo, Visitor } from './console-visitor.test-helpers';

/** Members over HTTP: who may invite and remove, 404 for outsiders, the last owner stays. */

/** Follows the newest emailed link matching `kind` ('sign-in' or 'invitations') and submits its form. */
async function follow(visitor: Visitor, email: string, kind: 'sign-in' | 'invitations', count = 1) {
  const mails = await eventually(async () => {
    const caught = await mailTo(email);
    return caught.filter((m: { text: string }) => m.text.includes(`/${kind}/`)).length >= count ? caught : null;
  }, 15_000);
  const path = new RegExp(`/${kind}/[A-Za-z0-9_-]+`).exec(mails.find((m: { text: string }) => m.text.includes(`/${kind}/`)).text)![0];
  const confirm = await visitor.request('GET', path);
  // A link that no longer works says so when opened: there is nothing to post.
  if (confirm.status !== 200) return confirm;
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
    // The invitation works once: a used link is gone (410).
    expect((await follow(new Visitor(), member, 'invitations')).status).toBe(410);

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
