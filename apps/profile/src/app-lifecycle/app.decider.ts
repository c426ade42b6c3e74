import type { AppStatus, VerificationStatus } from '@platform/contracts';
import { DomainError } from '@platform/errors';
import { assertNever, type Decider } from '@platform/event-store';
import { evolveApp, initialAppState, type AppEvent, type AppState, type BusinessProfileFields } from './app.state';

/** Time and request context arrive with every command; the decider never reads a clock. */
export interface CommandMeta {
  now: Date;
}

export type AppCommand =
  | { type: 'CreateApp'; data: { appId: string; orgId: string; handle: string; displayName: string; creatorEmail: string | null; dailyQuota: number }; meta: CommandMeta }
  | { type: 'ChangeAppStatus'; data: { action: AppStatusAction; reason: string | null }; meta: CommandMeta }
  | { type: 'ChangeVerificationStatus'; data: { status: VerificationStatus }; meta: CommandMeta }
  | { type: 'SetDailyQuota'; data: { dailyQuota: number }; meta: CommandMeta }
  | { type: 'UpdateBusinessProfile'; data: Partial<BusinessProfileFields>; meta: CommandMeta };

export type AppStatusAction = 'approve' | 'suspend' | 'reinstate' | 'reject';

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
        events.push({ type: 'AppStatusChanged', data: { appId: state.appId, status: 'internal_live', previousStatus: 'public_live', reason: 'verification_revoked' } });
      }
      return events;
    }
    case 'SetDailyQuota':
      return [{ type: 'AppDailyQuotaChanged', data: { appId: state.appId, dailyQuota: command.data.dailyQuota } }];
    case 'UpdateBusinessProfile': {
      if (command.data.avatarMediaId !== undefined && command.data.avatarMediaId !== null) {
        // Media readiness arrives with the media service; until then no media id can be ready.
        throw DomainError.invalid([{ field: 'avatarMediaId', issue: 'must be a ready image from POST /media of at most 5 MB' }]);
      }
      const profile: BusinessProfileFields = { ...state.profile };
      for (const key of Object.keys(command.data) as (keyof BusinessProfileFields)[]) {
        if (command.data[key] !== undefined) (profile as unknown as Record<string, unknown>)[key] = command.data[key];
      }
      return [{ type: 'BusinessProfileUpdated', data: { appId: state.appId, ...profile } }];
    }
    default:
      return assertNever(command);
  }
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
