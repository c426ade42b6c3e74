import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { ConsentUpdated, DomainEvent } from '#platform/contracts';
import type { ConsentEvent } from './consent.state';

const isConsentEvent = storedEventGuard<ConsentEvent>({
  AppUserIdentified: true,
  ConsentUpdated: true,
  TesterInvited: true,
  TesterAccepted: true,
  OptInLinkOpenRecorded: true,
});

/**
 * Inline projection of consent streams, in the append's transaction: current consents (GET /users),
 * listing versions (GET /consents snapshots), the appUserId ↔ userId map and testers.
 */
export async function projectConsentEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isConsentEvent(stored)) continue;
    const event = stored;
    const appId = stored.appId as string;
    const at = new Date(stored.occurredAt);
    switch (event.type) {
      case 'AppUserIdentified':
        await em.execute(`insert into consent.app_users (app_id, app_user_id, user_id, identified_at) values (?, ?, ?, ?) on conflict do nothing`, [
          appId,
          event.data.appUserId,
          event.data.userId,
          at,
        ]);
        break;
      case 'ConsentUpdated':
        await projectConsent(em, appId, event.data, at, stored.streamVersion);
        break;
      case 'TesterInvited':
        await em.execute(
          `insert into consent.testers (app_id, user_id, app_user_id, status, invited_at) values (?, ?, ?, 'invited', ?)
           on conflict (app_id, user_id) do nothing`,
          [appId, event.data.userId, event.data.appUserId, at],
        );
        break;
      case 'TesterAccepted':
        await em.execute(`update consent.testers set status = 'accepted', accepted_at = ? where app_id = ? and user_id = ?`, [at, appId, event.data.userId]);
        break;
      case 'OptInLinkOpenRecorded':
        break;
    }
  }
}

async function projectConsent(em: EntityManager, appId: string, d: ConsentUpdated['data'], at: Date, version: number): Promise<void> {
  await em.execute(
    `insert into consent.consents (app_id, app_user_id, user_id, status, source, ref, reason, opted_in_at, opted_out_at, updated_at, version)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (app_id, app_user_id) do update set status = excluded.status, source = excluded.source, ref = excluded.ref,
       reason = excluded.reason, opted_in_at = excluded.opted_in_at, opted_out_at = excluded.opted_out_at,
       updated_at = excluded.updated_at, version = excluded.version
     where consent.consents.version < excluded.version`,
    [appId, d.appUserId, d.userId, d.status, d.source, d.ref, d.reason, d.optedInAt, d.optedOutAt, at, version],
  );
  // The per-app sequence row stays locked until commit, so sequence numbers commit in order and a
  // listing snapshot taken at S never misses a change numbered below S. One statement, with nothing to
  // read back: a rebuild buffers it with the others instead of waiting for each event's sequence number.
  // (The closing update sees the table as the statement started, so it never closes the new version.)
  await em.execute(
    `with next as (
       insert into consent.consent_list_seq (app_id, seq) values (?, 1)
       on conflict (app_id) do update set seq = consent.consent_list_seq.seq + 1 returning seq),
     closed as (
       update consent.consent_versions set valid_to_seq = (select seq from next), superseded_at = ?
        where app_id = ? and app_user_id = ? and valid_to_seq is null)
     insert into consent.consent_versions (app_id, seq, app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at)
     select ?, seq, ?, ?, ?, ?, ?, ?, ? from next`,
    [appId, at, appId, d.appUserId, appId, d.appUserId, d.status, d.source, d.ref, d.optedInAt, d.optedOutAt, at],
    'run',
  );
}
