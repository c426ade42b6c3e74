import { AVATAR_MAX_BYTES, type AppStatus, type AppStatusAction, type VerificationStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveApp, initialAppState, type AppEvent, type AppState, type BusinessProfileFields } from './app.state';

export type AppCommand =
  | Command<'CreateApp', { appId: string; orgId: string; handle: string; displayName: string; creatorEmail: string | null; dailyQuota: number }>
  | Command<'ChangeAppStatus', { action: AppStatusAction; reason: string | null }>
  | Command<'ChangeVerificationStatus', { status: VerificationStatus }>
  | Command<'SetDailyQuota', { dailyQuota: number }>
  | Command<'UpdateBusinessProfile', Partial<Omit<BusinessProfileFields, 'avatarObjectKey'>> & { avatar?: AvatarFacts }>;

/** What media says of the file given as avatarMediaId (checked just before, D12 "on first use"). */
export type AvatarFacts =
  { found: false } | { found: true; source: 'app' | 'user'; kind: string; status: 'pending_upload' | 'ready' | 'invalid'; size: number; objectKey: string };

/** D19: the admin moves of business verification. */
const VERIFICATION_MOVES: Record<VerificationStatus, VerificationStatus[]> = {
  unverified: ['pending'],
  pending: ['verified', 'unverified'],
  verified: ['revoked'],
  revoked: ['pending'],
};

export function decideApp(command: AppCommand, state: AppState): AppEvent[] {
  if (command.type === 'CreateApp') {
    if (state.kind !== 'absent') throw new DomainError('invalid_transition', 'The app exists already.');
    return [{ type: 'AppCreated', data: { ...command.data } }];
  }
  if (state.kind === 'absent') throw new DomainError('not_found', 'No such app.');
  switch (command.type) {
    case 'ChangeAppStatus': {
      const next = nextStatus(state, command.data.action);
      return [{ type: 'AppStatusChanged', data: { appId: state.appId, status: next, previousStatus: state.status, reason: command.data.reason } }];
    }
    case 'ChangeVerificationStatus': {
      const target = command.data.status;
      if (!VERIFICATION_MOVES[state.verificationStatus].includes(target)) {
        throw new DomainError('invalid_transition', `Verification cannot move from ${state.verificationStatus} to ${target}.`);
      }
      const events: AppEvent[] = [
        { type: 'VerificationStatusChanged', data: { appId: state.appId, status: target, previousStatus: state.verificationStatus } },
      ];
      // The spec's drop: a public_live app whose verification is revoked goes back to internal_live.
      if (target === 'revoked' && state.status === 'public_live') {
        events.push({
          type: 'AppStatusChanged',
          data: { appId: state.appId, status: 'internal_live', previousStatus: 'public_live', reason: 'verification_revoked' },
        });
      }
      return events;
    }
    case 'SetDailyQuota':
      return [{ type: 'AppDailyQuotaChanged', data: { appId: state.appId, dailyQuota: command.data.dailyQuota } }];
    case 'UpdateBusinessProfile': {
      const { avatar, ...fields } = command.data;
      const profile = withGiven(state.profile, fields);
      if (fields.avatarMediaId === null) profile.avatarObjectKey = null;
      if (typeof fields.avatarMediaId === 'string') profile.avatarObjectKey = checkAvatar(avatar);
      return [{ type: 'BusinessProfileUpdated', data: { appId: state.appId, ...profile } }];
    }
    default:
      return assertNever(command);
  }
}

/** The fields with those given (not undefined) in `changes` replaced: PATCH semantics, null clears. */
function withGiven<T extends object>(fields: T, changes: Partial<T>): T {
  const next = { ...fields };
  for (const key of Object.keys(changes) as (keyof T)[]) {
    const value = changes[key];
    if (value !== undefined) next[key] = value;
  }
  return next;
}

/** Spec and D10: the avatar is a ready image from POST /media of at most 5 MiB. Answers its object key. */
function checkAvatar(avatar: AvatarFacts | undefined): string {
  const refuse = (issue: string) => DomainError.invalid([{ field: 'avatarMediaId', issue }]);
  if (!avatar || !avatar.found || avatar.source !== 'app') throw refuse('no such media from POST /media for this app');
  if (avatar.kind !== 'image') throw refuse(`must be an image; this is ${avatar.kind === 'other' ? 'another kind of file' : `a ${avatar.kind}`}`);
  if (avatar.status !== 'ready')
    throw refuse(avatar.status === 'invalid' ? 'the uploaded bytes are not the declared image' : 'the image has not been uploaded yet');
  if (avatar.size > AVATAR_MAX_BYTES) throw refuse(`must be at most ${AVATAR_MAX_BYTES} bytes`);
  return avatar.objectKey;
}

function nextStatus(state: Extract<AppState, { kind: 'existing' }>, action: AppStatusAction): AppStatus {
  const from = state.status;
  const refuse = () => new DomainError('invalid_transition', `Cannot ${action} an app that is ${from}.`);
  switch (action) {
    case 'approve':
      if (from === 'sandbox') return 'internal_live';
      if (from === 'internal_live') return 'public_live';
      throw refuse();
    case 'reject':
      if (from === 'sandbox') return 'rejected';
      throw refuse();
    case 'suspend':
      if (from === 'sandbox' || from === 'internal_live' || from === 'public_live') return 'suspended';
      throw refuse();
    case 'reinstate':
      if (from === 'suspended' && state.statusBeforeSuspension) return state.statusBeforeSuspension;
      throw refuse();
    default:
      return assertNever(action);
  }
}

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: initialAppState,
  decide: decideApp,
  evolve: evolveApp,
};
