import { unique } from '#platform/testing';
import { acceptInvitation, appOwnedBy, csrfOf, invitationLinks, membersForm, signedInVisitor, Visitor } from './console-visitor.test-helpers';

/** Invitations end over HTTP: replaced, withdrawn, outlived by a removal or by their sender's ownership; each refusal in words. */

const address = (name: string) => `${unique(`${name}.`)}@invites.example`;

/** A refused invitation link: opening it answers 410 with the reason in words and nothing to accept; accepting anyway, the same; no sign-in. */
async function expectRefused(link: string, words: string) {
  const visitor = new Visitor();
  const opened = await visitor.request('GET', link);
  expect([opened.status, opened.body.includes(words), opened.body.includes('Accept the invitation')]).toEqual([410, true, false]);
  // A page opened while the link still worked: its Accept is refused with the same words.
  const preSessionToken = csrfOf((await visitor.request('GET', '/')).body);
  const answer = await visitor.request('POST', link, { csrf: preSessionToken });
  expect([answer.status, answer.body.includes(words), visitor.cookies.has('console_session')]).toEqual([410, true, false]);
  expect(answer.body).not.toContain('invalid_transition');
}

/** Invites `email` twice; its two links, oldest first (the second sent once the first arrived, so mail order cannot mix them up). */
async function inviteTwice(owner: Visitor, appId: string, email: string): Promise<[string, string]> {
  expect((await membersForm(owner, appId, 'members', email)).status).toBe(303);
  const [first] = await invitationLinks(email, 1);
  expect((await membersForm(owner, appId, 'members', email)).status).toBe(303);
  const newest = (await invitationLinks(email, 2)).find((link) => link !== first)!;
  return [first, newest];
}

describe('console invitations end (e2e)', () => {
  it('re-inviting an address replaces its earlier invitation: the first link is refused, the newest works', async () => {
    const owner = address('owner');
    const bo = address('bo');
    const appId = await appOwnedBy(owner);
    const ana = await signedInVisitor(owner);
    const [first, newest] = await inviteTwice(ana, appId, bo);

    await expectRefused(first, 'A newer invitation was sent to this address');
    expect((await acceptInvitation(new Visitor(), newest)).status).toBe(303);
    expect((await ana.request('GET', `/apps/${appId}`)).body).toContain(`${owner} replaced the earlier invitation of ${bo}`);
  });

  it('an owner sees who sent a waiting invitation and withdraws it: its link is refused', async () => {
    const owner = address('owner');
    const bo = address('bo');
    const appId = await appOwnedBy(owner);
    const ana = await signedInVisitor(owner);
    await membersForm(ana, appId, 'members', bo);
    const [link] = await invitationLinks(bo);
    const waiting = await ana.request('GET', `/apps/${appId}/members`);
    expect(waiting.body).toContain(`Withdraw the invitation of ${bo}`);
    expect(waiting.body).toContain(`<strong>${bo}</strong>, invited by ${owner} <time`);

    expect((await membersForm(ana, appId, 'invitations/withdraw', bo)).status).toBe(303);
    expect((await ana.request('GET', `/apps/${appId}/members`)).body).not.toContain(`Withdraw the invitation of ${bo}`);
    await expectRefused(link, 'An owner of the app withdrew this invitation');
    expect((await ana.request('GET', `/apps/${appId}`)).body).toContain(`${owner} withdrew the invitation of ${bo}`);
  });

  it('an earlier link of a removed member does not bring them back', async () => {
    const owner = address('owner');
    const bo = address('bo');
    const appId = await appOwnedBy(owner);
    const ana = await signedInVisitor(owner);
    const [first, newest] = await inviteTwice(ana, appId, bo);
    expect((await acceptInvitation(new Visitor(), newest)).status).toBe(303);
    expect((await ana.request('GET', `/apps/${appId}/members`)).body).toContain(`<td data-label="Email">${bo}</td>`);
    expect((await membersForm(ana, appId, 'members/remove', bo)).status).toBe(303);

    await expectRefused(first, 'no longer works');
    expect((await ana.request('GET', `/apps/${appId}/members`)).body).not.toContain(`<td data-label="Email">${bo}</td>`);
  });

  it('an invitation whose sender was removed as an owner is refused', async () => {
    const owner = address('owner');
    const cy = address('cy');
    const bo = address('bo');
    const appId = await appOwnedBy(owner);
    const ana = await signedInVisitor(owner);
    await membersForm(ana, appId, 'members', cy);
    const cyVisitor = new Visitor();
    expect((await acceptInvitation(cyVisitor, (await invitationLinks(cy))[0])).status).toBe(303);
    expect((await membersForm(ana, appId, 'members/owner', cy)).status).toBe(303);
    expect((await membersForm(cyVisitor, appId, 'members', bo)).status).toBe(303);
    const [link] = await invitationLinks(bo);
    expect((await membersForm(ana, appId, 'members/remove', cy)).status).toBe(303);

    await expectRefused(link, 'The person who sent this invitation is no longer an owner of the app');
    expect((await ana.request('GET', `/apps/${appId}`)).body).toContain(`${owner} made ${cy} an owner`);
  });

  it('only an owner of the app withdraws; a plain member gets 403, another app 404', async () => {
    const owner = address('owner');
    const member = address('member');
    const bo = address('bo');
    const stranger = address('stranger');
    const appId = await appOwnedBy(owner);
    const otherApp = await appOwnedBy(stranger);
    const ana = await signedInVisitor(owner);
    await membersForm(ana, appId, 'members', member);
    const memberVisitor = new Visitor();
    await acceptInvitation(memberVisitor, (await invitationLinks(member))[0]);
    await membersForm(ana, appId, 'members', bo);
    const [link] = await invitationLinks(bo);

    expect((await membersForm(memberVisitor, appId, 'invitations/withdraw', bo)).status).toBe(403);
    const strangerVisitor = await signedInVisitor(stranger);
    const strangersOwn = await strangerVisitor.request('GET', `/apps/${otherApp}/members`);
    const csrf = csrfOf(strangersOwn.body);
    expect((await strangerVisitor.request('POST', `/apps/${appId}/invitations/withdraw`, { csrf, email: bo })).status).toBe(404);
    // Their own app has no such invitation: 404 as well, and the invitation still works.
    expect((await membersForm(strangerVisitor, otherApp, 'invitations/withdraw', bo)).status).toBe(404);
    expect((await acceptInvitation(new Visitor(), link)).status).toBe(303);
  });
});
