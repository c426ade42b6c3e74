import { deciderSpecification } from '#platform/decider/testing';
import { appDecider, type AppCommand, type AvatarFacts } from './app.decider';
import type { AppEvent } from './app.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };
const spec = deciderSpecification(appDecider);
const created: AppEvent = {
  type: 'AppCreated',
  data: { appId: 'app_1', orgId: 'org_1', handle: 'acme', displayName: 'Acme', creatorEmail: null, dailyQuota: 10000 },
};
const moved = (previousStatus: string, status: string, reason: string | null = null) =>
  ({ type: 'AppStatusChanged', data: { appId: 'app_1', status, previousStatus, reason } }) as AppEvent;
const verification = (previousStatus: string, status: string) =>
  ({ type: 'VerificationStatusChanged', data: { appId: 'app_1', status, previousStatus } }) as AppEvent;
const status = (action: 'approve' | 'suspend' | 'reinstate' | 'reject', reason: string | null = null) =>
  ({ type: 'ChangeAppStatus', data: { action, reason }, metadata }) as const;

describe('App decider', () => {
  describe('CreateApp', () => {
    it('creates a sandbox app', () =>
      spec
        .given([])
        .when({ type: 'CreateApp', data: created.data as never, metadata })
        .then([created]));
    it('refuses to create an app twice', () =>
      spec
        .given([created])
        .when({ type: 'CreateApp', data: created.data as never, metadata })
        .thenThrows('invalid_transition'));
  });

  describe('access ladder (D18)', () => {
    it('approve moves sandbox to internal_live', () =>
      spec
        .given([created])
        .when(status('approve'))
        .then([moved('sandbox', 'internal_live')]));
    it('approve moves internal_live to public_live', () =>
      spec
        .given([created, moved('sandbox', 'internal_live')])
        .when(status('approve'))
        .then([moved('internal_live', 'public_live')]));
    it('cannot approve past public_live', () =>
      spec
        .given([created, moved('sandbox', 'internal_live'), moved('internal_live', 'public_live')])
        .when(status('approve'))
        .thenThrows('invalid_transition'));
    it('rejects only from sandbox', () =>
      spec
        .given([created])
        .when(status('reject', 'spam'))
        .then([moved('sandbox', 'rejected', 'spam')]));
    it('cannot reject a live app', () =>
      spec
        .given([created, moved('sandbox', 'internal_live')])
        .when(status('reject'))
        .thenThrows('invalid_transition'));
    it('suspends a live app', () =>
      spec
        .given([created, moved('sandbox', 'internal_live')])
        .when(status('suspend', 'abuse'))
        .then([moved('internal_live', 'suspended', 'abuse')]));
    it('reinstates to the status before suspension', () =>
      spec
        .given([created, moved('sandbox', 'internal_live'), moved('internal_live', 'public_live'), moved('public_live', 'suspended')])
        .when(status('reinstate'))
        .then([moved('suspended', 'public_live')]));
    it('cannot reinstate an app that is not suspended', () => spec.given([created]).when(status('reinstate')).thenThrows('invalid_transition'));
    it('cannot suspend a rejected app', () =>
      spec
        .given([created, moved('sandbox', 'rejected')])
        .when(status('suspend'))
        .thenThrows('invalid_transition'));
    it('refuses commands for an unknown app', () => spec.given([]).when(status('approve')).thenThrows('not_found'));
  });

  describe('verification (D19)', () => {
    const verify = (to: string) => ({ type: 'ChangeVerificationStatus', data: { status: to }, metadata }) as never;
    it('unverified → pending', () =>
      spec
        .given([created])
        .when(verify('pending'))
        .then([verification('unverified', 'pending')]));
    it('pending → verified', () =>
      spec
        .given([created, verification('unverified', 'pending')])
        .when(verify('verified'))
        .then([verification('pending', 'verified')]));
    it('pending → unverified', () =>
      spec
        .given([created, verification('unverified', 'pending')])
        .when(verify('unverified'))
        .then([verification('pending', 'unverified')]));
    it('unverified cannot jump to verified', () => spec.given([created]).when(verify('verified')).thenThrows('invalid_transition'));
    it('revoked → pending', () =>
      spec
        .given([created, verification('unverified', 'pending'), verification('pending', 'verified'), verification('verified', 'revoked')])
        .when(verify('pending'))
        .then([verification('revoked', 'pending')]));
    it('revoking a public_live app drops it to internal_live', () =>
      spec
        .given([
          created,
          moved('sandbox', 'internal_live'),
          moved('internal_live', 'public_live'),
          verification('unverified', 'pending'),
          verification('pending', 'verified'),
        ])
        .when(verify('revoked'))
        .then([verification('verified', 'revoked'), moved('public_live', 'internal_live', 'verification_revoked')]));
    it('revoking an internal_live app changes only verification', () =>
      spec
        .given([created, moved('sandbox', 'internal_live'), verification('unverified', 'pending'), verification('pending', 'verified')])
        .when(verify('revoked'))
        .then([verification('verified', 'revoked')]));
    it('a suspended public_live app whose verification was revoked is reinstated as internal_live', () =>
      spec
        .given([
          created,
          moved('sandbox', 'internal_live'),
          moved('internal_live', 'public_live'),
          verification('unverified', 'pending'),
          verification('pending', 'verified'),
          moved('public_live', 'suspended'),
          verification('verified', 'revoked'),
        ])
        .when(status('reinstate'))
        .then([moved('suspended', 'internal_live')]));
  });

  describe('business profile and quota', () => {
    it('updates only the given fields and emits the whole profile', () =>
      spec
        .given([created])
        .when({ type: 'UpdateBusinessProfile', data: { about: 'We sell anvils', websiteUrl: 'https://acme.example' }, metadata })
        .then([
          {
            type: 'BusinessProfileUpdated',
            data: {
              appId: 'app_1',
              displayName: 'Acme',
              about: 'We sell anvils',
              websiteUrl: 'https://acme.example',
              category: null,
              avatarMediaId: null,
              avatarObjectKey: null,
            },
          },
        ]));
    it('clears a field set to null', () =>
      spec
        .given([
          created,
          {
            type: 'BusinessProfileUpdated',
            data: { appId: 'app_1', displayName: 'Acme', about: 'x', websiteUrl: null, category: 'retail', avatarMediaId: null, avatarObjectKey: null },
          },
        ])
        .when({ type: 'UpdateBusinessProfile', data: { category: null }, metadata })
        .then([
          {
            type: 'BusinessProfileUpdated',
            data: { appId: 'app_1', displayName: 'Acme', about: 'x', websiteUrl: null, category: null, avatarMediaId: null, avatarObjectKey: null },
          },
        ]));
    describe('avatar: a ready image from POST /media of at most 5 MiB', () => {
      const image = {
        found: true as const,
        source: 'app' as const,
        kind: 'image',
        status: 'ready' as const,
        size: 5 * 1024 * 1024,
        objectKey: 'uploads/app_1/med_a',
      };
      const setAvatar = (avatar: AvatarFacts): AppCommand => ({ type: 'UpdateBusinessProfile', data: { avatarMediaId: 'med_a', avatar }, metadata });
      const withAvatar = {
        appId: 'app_1',
        displayName: 'Acme',
        about: null,
        websiteUrl: null,
        category: null,
        avatarMediaId: 'med_a',
        avatarObjectKey: 'uploads/app_1/med_a',
      };
      it('takes a ready image of exactly 5 MiB and keeps where its bytes are', () =>
        spec
          .given([created])
          .when(setAvatar(image))
          .then([{ type: 'BusinessProfileUpdated', data: withAvatar }]));
      it('null removes it', () =>
        spec
          .given([created, { type: 'BusinessProfileUpdated', data: withAvatar }])
          .when({ type: 'UpdateBusinessProfile', data: { avatarMediaId: null }, metadata })
          .then([{ type: 'BusinessProfileUpdated', data: { ...withAvatar, avatarMediaId: null, avatarObjectKey: null } }]));
      it.each([
        ['unknown media', { found: false } as AvatarFacts, 'no such media'],
        ['a file a user sent', { ...image, source: 'user' } as AvatarFacts, 'no such media'],
        ['a document', { ...image, kind: 'document' } as AvatarFacts, 'must be an image'],
        ['a pending upload', { ...image, status: 'pending_upload' } as AvatarFacts, 'not been uploaded'],
        ['bytes that are no image', { ...image, status: 'invalid' } as AvatarFacts, 'not the declared image'],
        ['an image over 5 MiB', { ...image, size: 5 * 1024 * 1024 + 1 } as AvatarFacts, 'at most 5242880 bytes'],
      ])('refuses %s with 400 on avatarMediaId', (_name, avatar, issue) =>
        spec
          .given([created])
          .when(setAvatar(avatar))
          .thenThrows('invalid_request', (e) => {
            expect(e.details?.[0].field).toBe('avatarMediaId');
            expect(e.details?.[0].issue).toContain(issue);
          }),
      );
    });
    it('sets the daily quota', () =>
      spec
        .given([created])
        .when({ type: 'SetDailyQuota', data: { dailyQuota: 5 }, metadata })
        .then([{ type: 'AppDailyQuotaChanged', data: { appId: 'app_1', dailyQuota: 5 } }]));
  });
});
