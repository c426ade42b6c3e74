import type { ConsentSource, ConsentStatus, ConsentUpdated } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveConsent, initialConsentState, type ConsentEvent, type ConsentSnapshot, type ConsentState } from './consent.state';

/** An opt-in link as its token says, once the signature checked out; null when it did not (or names another app). */
export type VerifiedLink = { linkId: string; ref: string | null; expiresAt: Date } | null;

interface Who {
  appUserId: string;
  userId: string;
}

export type ConsentCommand =
  | Command<'RecordUserMessage', Who>
  | Command<'RecordOptInLinkOpened', Who & { link: VerifiedLink }>
  | Command<'AllowOptInLink', Who & { link: VerifiedLink }>
  | Command<'AllowFromProfile', Who>
  | Command<'StopApp', Who>
  | Command<'BlockApp', Who>
  | Command<'UnblockApp', Who>
  | Command<'RecordTesterInvitation', Who>
  | Command<'AcceptTesterInvitation', Who>
  | Command<'DeleteAccount', Who>;

const refuse = (message: string) => new DomainError('invalid_transition', message);
const badToken = (issue: string) => DomainError.invalid([{ field: 'token', issue }], `The opt-in link ${issue}.`);

type Known = Extract<ConsentState, { kind: 'known' }>;

function updated(state: Known, next: ConsentSnapshot): ConsentUpdated {
  return {
    type: 'ConsentUpdated',
    data: { appUserId: state.appUserId, userId: state.userId, previousStatus: state.consent?.status ?? null, ...next },
  };
}

/** D5: from nothing or opted_out, these sources opt in; blocked must be unblocked first. */
function optIn(state: Known, source: ConsentSource, ref: string | null, now: Date): ConsentEvent[] {
  const current = state.consent;
  if (current?.status === 'blocked') throw refuse('The user blocked this app; only unblocking moves on from there.');
  if (current?.status === 'opted_in') return [];
  return [updated(state, { status: 'opted_in', source, ref, reason: null, optedInAt: now.toISOString(), optedOutAt: null })];
}

function optOut(state: Known, to: Exclude<ConsentStatus, 'opted_in'>, now: Date): ConsentEvent[] {
  const current = state.consent;
  if (!current) throw refuse('The user has not opted in to this app.');
  if (current.status === to || (to === 'opted_out' && current.status === 'blocked')) return [];
  const optedOutAt = current.status === 'opted_in' ? now.toISOString() : current.optedOutAt;
  return [updated(state, { ...current, status: to, reason: null, optedOutAt })];
}

export function decideConsent(command: ConsentCommand, state: ConsentState): ConsentEvent[] {
  const { appUserId, userId } = command.data;
  // The first thing a user does towards an app also records who they are (reverse lookup).
  const identified: ConsentEvent[] = state.kind === 'unknown' ? [{ type: 'AppUserIdentified', data: { appUserId, userId } }] : [];
  const known: Known = state.kind === 'known' ? state : { kind: 'known', appUserId, userId, consent: null, openedLinks: [], tester: 'none' };
  const now = command.metadata.now;
  if (known.consent?.reason === 'account_deleted') {
    if (command.type === 'DeleteAccount') return [];
    throw refuse("The user's account was deleted.");
  }
  const decided = (events: ConsentEvent[]) => [...identified, ...events];

  switch (command.type) {
    case 'RecordUserMessage':
      return decided(optIn(known, 'user_initiated', null, now));
    case 'RecordOptInLinkOpened': {
      const link = command.data.link;
      if (!link) throw badToken('is not a valid opt-in link of this app');
      return decided([{ type: 'OptInLinkOpenRecorded', data: { appUserId, userId, linkId: link.linkId } }]);
    }
    case 'AllowOptInLink': {
      const link = command.data.link;
      if (!link) throw badToken('is not a valid opt-in link of this app');
      if (link.expiresAt.getTime() <= now.getTime()) throw badToken(`expired at ${link.expiresAt.toISOString()}`);
      if (!known.openedLinks.includes(link.linkId)) throw refuse('Allow counts only after the user opened the link.');
      return decided(optIn(known, 'opt_in_link', link.ref, now));
    }
    case 'AllowFromProfile':
      return decided(optIn(known, 'profile_allow', null, now));
    case 'StopApp':
      return decided(optOut(known, 'opted_out', now));
    case 'BlockApp':
      return decided(optOut(known, 'blocked', now));
    case 'UnblockApp': {
      const current = known.consent;
      if (current?.status !== 'blocked') return decided([]);
      // D5: unblocking leaves the user opted out; a new opt-in is needed to reach them.
      return decided([updated(known, { ...current, status: 'opted_out' })]);
    }
    case 'RecordTesterInvitation':
      if (known.tester === 'accepted') throw refuse('The user is a tester of this app already.');
      return decided(known.tester === 'invited' ? [] : [{ type: 'TesterInvited', data: { appUserId, userId } }]);
    case 'AcceptTesterInvitation': {
      if (known.tester === 'none') throw refuse('The app has not invited this user as a tester.');
      if (known.tester === 'accepted') return decided([]);
      if (known.consent?.status === 'blocked') throw refuse('The user blocked this app; only unblocking moves on from there.');
      return decided([{ type: 'TesterAccepted', data: { appUserId, userId } }, ...optIn(known, 'sandbox_tester', null, now)]);
    }
    case 'DeleteAccount': {
      const current = known.consent;
      if (!current) return [];
      const optedOutAt = current.status === 'opted_in' ? now.toISOString() : (current.optedOutAt ?? now.toISOString());
      return [updated(known, { ...current, status: 'opted_out', reason: 'account_deleted', optedOutAt })];
    }
    default:
      return assertNever(command);
  }
}

export const consentDecider: Decider<ConsentState, ConsentCommand, ConsentEvent> = {
  initialState: initialConsentState,
  decide: decideConsent,
  evolve: evolveConsent,
};
