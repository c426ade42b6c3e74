import { inlineProjectionRebuild } from '#platform/event-store';
import { projectConsentEvents } from './consent.projection';

/**
 * Consent's projections of its own event store, for `platformctl replay projections --service
 * consent`: the append's inline projection replayed in position order. Listing sequence numbers
 * (consent_versions.seq) are handed out again in that order, which can differ from the live commit
 * order between users of one app, so a GET /consents cursor issued before the rebuild may skip or
 * repeat a row after it (docs/adr/0111-projections-rebuilt-from-the-event-store.md).
 */
export const consentProjectionRebuild = inlineProjectionRebuild({
  service: 'consent',
  schema: 'consent',
  // The append's order: an identified app user, then testers, then the consent and its listing version.
  tables: ['app_users', 'testers', 'consents', 'consent_list_seq', 'consent_versions'],
  eventTypes: ['AppUserIdentified', 'ConsentUpdated', 'TesterInvited', 'TesterAccepted'],
  // Each ConsentUpdated closes the user's current listing version through it.
  indexesDuringLoad: ['consent_versions_current_idx'],
  project: projectConsentEvents,
});
