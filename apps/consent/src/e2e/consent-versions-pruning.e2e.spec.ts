/**
 * Superseded listing versions go once no cursor can reach them (consent-versions.pruner.ts: the
 * cursor lifetime and an hour), counted in `rows_pruned_total{table="consent.consent_versions"}`
 * like every other table a service prunes; the current version stays.
 */
import { advanceClock, createTestApp, createTestUser, eventually, expectStatus, queryDatabase, simAppAction, simSendText } from '#platform/testing';

const consentMetrics = () => `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 20}/metrics`;

async function versionsPruned(): Promise<number> {
  const text = await (await fetch(consentMetrics())).text();
  const line = text.split('\n').find((l) => l.startsWith('rows_pruned_total{') && l.includes('table="consent.consent_versions"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('consent versions pruning (e2e)', () => {
  it('drops superseded versions past the cursor lifetime and an hour, keeps the current one, and counts them', async () => {
    const app = await createTestApp();
    const user = await createTestUser(app.orgId);
    const { appUserId } = await simSendText(user.id, app.appId);
    expectStatus(await simAppAction(user.id, app.appId, 'stop'), 200);
    const versions = async () =>
      (
        await queryDatabase<{ superseded: number; current: number }>(
          `select count(*) filter (where superseded_at is not null)::int as superseded, count(*) filter (where superseded_at is null)::int as current
             from consent.consent_versions where app_id = $1 and app_user_id = $2`,
          [app.appId, appUserId],
        )
      )[0];
    await eventually(async () => ((await versions()).superseded >= 1 ? true : null), 15_000);
    const before = await versionsPruned();

    await advanceClock(25 * 3600 + 60);
    await eventually(async () => ((await versions()).superseded === 0 ? true : null), 15_000);
    expect((await versions()).current).toBe(1);
    expect(await versionsPruned()).toBeGreaterThan(before);
  });
});
