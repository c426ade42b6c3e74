import { advanceClock, eventually, queryDatabase, unique } from '#platform/testing';
import { appOwnedBy, CONSOLE, csrfOf, mailTo, signedInVisitor, Visitor } from './console-visitor.test-helpers';

/**
 * Signing in to the console by emailed link, over plain HTTP against the running stack: the forms,
 * their CSRF tokens, the cookies' flags, single-use and expiring links, sessions that end, no
 * account enumeration, and 404 for an app a person is not a member of.
 */
/** Asks for a link and returns the path of the one emailed (waiting for the console to know the app first). */
async function signInLink(visitor: Visitor, email: string): Promise<string> {
  // The console learns of an app and its owner from profile's events; asked before that, it answers
  // the same and sends nothing (no account enumeration), so the request waits until it knows them.
  await eventually(async () => (await queryDatabase('select 1 from console.members where email = $1', [email])).length > 0, 20_000);
  const before = (await mailTo(email)).length;
  const home = await visitor.request('GET', '/');
  const answer = await visitor.request('POST', '/sign-in', { csrf: csrfOf(home.body), email });
  expect(answer.status).toBe(200);
  const mails = await eventually(async () => {
    const caught = await mailTo(email);
    return caught.length > before ? caught : null;
  }, 15_000);
  const link = /https?:\/\/[^\s]+\/sign-in\/([A-Za-z0-9_-]+)/.exec(mails[0].text);
  if (!link) throw new Error(`no link in ${mails[0].text}`);
  return `/sign-in/${link[1]}`;
}

async function signIn(visitor: Visitor, email: string): Promise<void> {
  const path = await signInLink(visitor, email);
  const confirm = await visitor.request('GET', path);
  const used = await visitor.request('POST', path, { csrf: csrfOf(confirm.body) });
  expect([used.status, used.location]).toEqual([303, '/apps']);
}

describe('console sign-in (e2e)', () => {
  it('shows a sign-in form with an Email field, and sets its CSRF cookie HttpOnly and SameSite=Lax', async () => {
    const visitor = new Visitor();
    const home = await visitor.request('GET', '/');
    expect(home.status).toBe(200);
    const csrfCookie = visitor.lastSetCookies.find((c) => c.startsWith('console_csrf='));
    expect(csrfCookie).toMatch(/; HttpOnly/i);
    expect(csrfCookie).toMatch(/; SameSite=Lax/i);
    expect(home.body).toContain('<label for="email">Email</label>');
    expect(home.body).toContain('<button type="submit">Sign in</button>');
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('signs an owner in by emailed link, once; the session shows their apps and 404 for others', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Widgets <Inc>');
    const otherApp = await appOwnedBy(`${unique('other.')}@widgets.example`);
    const visitor = new Visitor();

    const path = await signInLink(visitor, owner);
    const [mail] = await mailTo(owner);
    expect(mail).toMatchObject({ to: [owner], subject: 'Your sign-in link' });
    expect(mail.html).toContain(`href="${CONSOLE}${path}"`);

    // Opening the link uses nothing up: a mail scanner's visit leaves it working.
    const confirm = await visitor.request('GET', path);
    expect(confirm.status).toBe(200);
    expect((await visitor.request('GET', path)).status).toBe(200);
    const used = await visitor.request('POST', path, { csrf: csrfOf(confirm.body) });
    expect([used.status, used.location]).toEqual([303, '/apps']);
    const signedInCookie = visitor.lastSetCookies.find((c) => c.startsWith('console_session='));
    expect(signedInCookie).toMatch(/; HttpOnly/i);
    expect(signedInCookie).toMatch(/; SameSite=Lax/i);
    expect(signedInCookie).toMatch(/; Max-Age=43200/);
    expect(signedInCookie).not.toMatch(/; Secure/i); // the test console is served over http; https turns Secure on

    const apps = await visitor.request('GET', '/apps');
    expect(apps.status).toBe(200);
    expect(apps.body).toContain(`href="/apps/${appId}"`);
    expect(apps.body).toContain('Widgets &lt;Inc&gt;');
    expect(apps.body).not.toContain(otherApp);
    expect((await visitor.request('GET', `/apps/${appId}`)).status).toBe(200);
    const notMine = await visitor.request('GET', `/apps/${otherApp}`);
    const missing = await visitor.request('GET', `/apps/app_${unique('nothing')}`);
    expect([notMine.status, missing.status]).toEqual([404, 404]);
    expect(notMine.body).toBe(missing.body);

    // The link works once, even in the same browser.
    const again = await visitor.request('POST', path, { csrf: csrfOf(confirm.body) });
    expect(again.status).toBe(400);
    expect(again.body).toContain('used already, has expired or is unknown');
  });

  it('answers a non-member exactly as a member, and mails the non-member nothing', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner, 'Widgets <Inc>');
    await signInLink(new Visitor(), owner); // the console knows the app and its owner now
    const stranger = `${unique('stranger.')}@widgets.example`;
    const answers = [];
    for (const email of [owner, stranger]) {
      const visitor = new Visitor();
      const home = await visitor.request('GET', '/');
      const answer = await visitor.request('POST', '/sign-in', { csrf: csrfOf(home.body), email });
      answers.push({ status: answer.status, body: answer.body.replace(email, '<address>') });
    }
    expect(answers[1]).toEqual(answers[0]);
    await eventually(async () => (await mailTo(owner)).length === 2);
    expect(await mailTo(stranger)).toEqual([]);
  });

  it('refuses a form without its CSRF token: sign-in, following a link and signing out', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner, 'Widgets <Inc>');
    const visitor = new Visitor();
    await visitor.request('GET', '/');
    expect((await visitor.request('POST', '/sign-in', { email: owner })).status).toBe(403);
    expect((await visitor.request('POST', '/sign-in', { email: owner, csrf: 'forged' })).status).toBe(403);

    const path = await signInLink(visitor, owner);
    expect((await visitor.request('POST', path, {})).status).toBe(403);
    await signIn(visitor, owner);
    expect((await visitor.request('POST', '/sign-out', { csrf: 'forged' })).status).toBe(403);
    expect((await visitor.request('GET', '/apps')).status).toBe(200);
  });

  it('binds each CSRF token to its own session: the token of another, or a pair the sender chose, is refused', async () => {
    const email = `${unique('someone.')}@example.com`;
    // Before a session: the form token is made for the cookie it was handed out with.
    const first = new Visitor();
    const second = new Visitor();
    const firstHome = await first.request('GET', '/');
    await second.request('GET', '/');
    expect((await second.request('POST', '/sign-in', { csrf: csrfOf(firstHome.body), email })).status).toBe(403);
    // A cookie set by someone else (a sibling host, a network on http) with a token to match: plain
    // double submit would take it; a token the console did not make for that cookie is refused.
    const planted = new Visitor();
    const chosen = 'chosen-by-the-sender-chosen-by-the-sender-0';
    planted.cookies.set('console_csrf', chosen);
    expect((await planted.request('POST', '/sign-in', { csrf: chosen, email })).status).toBe(403);
    expect((await first.request('POST', '/sign-in', { csrf: csrfOf(firstHome.body), email })).status).toBe(200);

    // Signed in: one session's token is refused with another session's cookie.
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner);
    const one = await signedInVisitor(owner);
    const other = await signedInVisitor(owner);
    const oneToken = csrfOf((await one.request('GET', '/apps')).body);
    expect((await other.request('POST', '/sign-out', { csrf: oneToken })).status).toBe(403);
    expect((await other.request('GET', '/apps')).status).toBe(200);
    expect((await one.request('POST', '/sign-out', { csrf: oneToken })).status).toBe(303);
  });

  it('ends a session on sign-out and after 12 hours', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner, 'Widgets <Inc>');
    const visitor = new Visitor();
    await signIn(visitor, owner);
    const apps = await visitor.request('GET', '/apps');
    const out = await visitor.request('POST', '/sign-out', { csrf: csrfOf(apps.body) });
    expect([out.status, out.location]).toEqual([303, '/']);
    expect((await visitor.request('GET', '/apps')).location).toBe('/');

    const later = new Visitor();
    await signIn(later, owner);
    expect((await later.request('GET', '/apps')).status).toBe(200);
    await advanceClock(12 * 3600);
    expect((await later.request('GET', '/apps')).location).toBe('/');
  });

  it('refuses a link past its 15 minutes', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner, 'Widgets <Inc>');
    const visitor = new Visitor();
    const path = await signInLink(visitor, owner);
    const confirm = await visitor.request('GET', path);
    await advanceClock(15 * 60);
    expect((await visitor.request('POST', path, { csrf: csrfOf(confirm.body) })).status).toBe(400);
  });

  it('limits sign-in requests per client: the eleventh in 15 minutes is refused', async () => {
    const visitor = new Visitor();
    const home = await visitor.request('GET', '/');
    const statuses = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await visitor.request('POST', '/sign-in', { csrf: csrfOf(home.body), email: `${unique('x.')}@example.com` })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });

  it('counts sign-in requests per client atomically: of 30 sent at once, 10 are answered and 20 refused', async () => {
    const visitor = new Visitor();
    const home = await visitor.request('GET', '/');
    const csrf = csrfOf(home.body);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => (await visitor.request('POST', '/sign-in', { csrf, email: `${unique('x.')}@example.com` })).status),
    );
    expect(statuses.filter((status) => status === 200).length).toBe(10);
    expect(statuses.filter((status) => status === 429).length).toBe(20);
  });
});
