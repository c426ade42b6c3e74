import type { UserStatus } from '#platform/contracts';
import { deciderSpecification } from '#platform/decider/testing';
import { userDecider, type UserCommand } from './user.decider';
import type { UserEvent } from './user.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };
const spec = deciderSpecification(userDecider);
const created: UserEvent = {
  type: 'UserCreated',
  data: { userId: 'usr_1', orgId: 'org_1', email: 'ada@acme.example', displayName: 'Ada', status: 'active' },
};
const create: UserCommand = { type: 'CreateUser', data: { userId: 'usr_1', orgId: 'org_1', email: 'ada@acme.example', displayName: 'Ada' }, metadata };
const change = (status: UserStatus): UserCommand => ({ type: 'ChangeUserStatus', data: { status }, metadata });
const changed = (previousStatus: UserStatus, status: UserStatus): UserEvent => ({
  type: 'UserStatusChanged',
  data: { userId: 'usr_1', orgId: 'org_1', status, previousStatus },
});

describe('User decider', () => {
  describe('CreateUser', () => {
    it('creates an active user', () => spec.given([]).when(create).then([created]));
    it('lower-cases the email', () =>
      spec
        .given([])
        .when({ ...create, data: { ...create.data, email: 'Ada@ACME.example' } })
        .then([created]));
    it('keeps a missing display name as null', () =>
      spec
        .given([])
        .when({ ...create, data: { ...create.data, displayName: null } })
        .then([{ type: 'UserCreated', data: { ...created.data, displayName: null } } as UserEvent]));
    it('refuses to create a user twice', () => spec.given([created]).when(create).thenThrows('invalid_transition'));
  });

  describe('ChangeUserStatus', () => {
    it('active → deactivated', () =>
      spec
        .given([created])
        .when(change('deactivated'))
        .then([changed('active', 'deactivated')]));
    it('active → deleted', () =>
      spec
        .given([created])
        .when(change('deleted'))
        .then([changed('active', 'deleted')]));
    it('deactivated → active', () =>
      spec
        .given([created, changed('active', 'deactivated')])
        .when(change('active'))
        .then([changed('deactivated', 'active')]));
    it('deactivated → deleted', () =>
      spec
        .given([created, changed('active', 'deactivated')])
        .when(change('deleted'))
        .then([changed('deactivated', 'deleted')]));
    it('same status (active) emits nothing', () => spec.given([created]).when(change('active')).then([]));
    it('same status (deactivated) emits nothing', () =>
      spec
        .given([created, changed('active', 'deactivated')])
        .when(change('deactivated'))
        .then([]));
    it('same status (deleted) emits nothing', () =>
      spec
        .given([created, changed('active', 'deleted')])
        .when(change('deleted'))
        .then([]));
    it('deleted cannot become active again', () =>
      spec
        .given([created, changed('active', 'deleted')])
        .when(change('active'))
        .thenThrows('invalid_transition'));
    it('deleted cannot become deactivated', () =>
      spec
        .given([created, changed('active', 'deleted')])
        .when(change('deactivated'))
        .thenThrows('invalid_transition'));
    it('refuses to change an unknown user', () => spec.given([]).when(change('deactivated')).thenThrows('not_found'));
  });
});
