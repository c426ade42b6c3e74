import { advanceClock, eventually, queryDatabase, unique } from '#platform/testing';
import { appOwnedBy, csrfOf, mailTo, signedInVisitor } from './console-visitor.test-helpers';

const count = async (sql: string, params: unknown[]) => Number((await queryDatabase<{ n: string }>(sql, params))[0].n);

/** What the console keeps of visits, by its retention (console-retention.pruner.ts): gone once it can no longer change an answer. */
describe('console: retention (e2e)', () => {
  it('prunes sign-in requests, links, sessions and invitations past their time; sent emails stay 30 days', async () => {
    const owner = `${unique('owner.')}@retention.example`;
    const invitee = `${unique('invitee.')}@retention.example`;
    const appId = await appOwnedBy(owner, 'Retention App');
    const visitor = await signedInVisitor(owner);
    const members = await visitor.request('GET', `/apps/${appId}/members`);
    expect((await visitor.request('POST', `/apps/${appId}/members`, { csrf: csrfOf(members.body), email: invitee })).status).toBe(303);
    await eventually(async () => ((await mailTo(invitee)).length ? true : null), 15_000);

    const kept = async () => ({
      requests: await count(`select count(*) as n from console.sign_in_clients where client = $1`, [visitor.address]),
      links: await count(`select count(*) as n from console.sign_in_links where email = $1`, [owner]),
      sessions: await count(`select count(*) as n from console.sessions where email = $1`, [owner]),
      invitations: await count(`select count(*) as n from console.invitations where email = $1`, [invitee]),
      sentMail: await count(`select count(*) as n from console.mail_outbox where to_addresses ? $1 and sent_at is not null`, [invitee]),
    });
    // Signing in may have taken more than one link (the helper asks again until the owner is known).
    const before = await kept();
    expect(Object.values(before).every((n) => n >= 1)).toBe(true);
    expect(before.sentMail).toBe(1);

    // Past the invitation's 7 days (and every shorter time): only the sent email is left.
    await advanceClock(8 * 24 * 3600);
    let last = before;
    const gone = await eventually(async () => {
      last = await kept();
      return last.requests + last.links + last.sessions + last.invitations === 0 ? last : null;
    }, 15_000).catch(() => last);
    expect(gone).toEqual({ requests: 0, links: 0, sessions: 0, invitations: 0, sentMail: 1 });

    await advanceClock(23 * 24 * 3600);
    await eventually(async () => ((await kept()).sentMail === 0 ? true : null), 15_000);
  });
});
