import { deciderSpecification } from '#platform/decider/testing';
import { orgDecider, type OrgCommand } from './org.decider';
import type { OrgEvent } from './org.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };
const spec = deciderSpecification(orgDecider);
const created: OrgEvent = { type: 'OrgCreated', data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: false } };
const create: OrgCommand = { type: 'CreateOrg', data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: false }, metadata };
const update = (allowsExternalBusinesses: boolean): OrgCommand => ({ type: 'UpdateOrg', data: { allowsExternalBusinesses }, metadata });
const updated = (allowsExternalBusinesses: boolean): OrgEvent => ({ type: 'OrgUpdated', data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses } });

describe('Org decider', () => {
  describe('CreateOrg', () => {
    it('creates an org', () => spec.given([]).when(create).then([created]));
    it('creates an org that allows external businesses', () =>
      spec
        .given([])
        .when({ ...create, data: { ...create.data, allowsExternalBusinesses: true } })
        .then([{ type: 'OrgCreated', data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: true } }]));
    it('refuses to create an org twice', () => spec.given([created]).when(create).thenThrows('invalid_transition'));
  });

  describe('UpdateOrg', () => {
    it('opens the org to external businesses and emits the whole org', () =>
      spec
        .given([created])
        .when(update(true))
        .then([updated(true)]));
    it('closes it again', () =>
      spec
        .given([created, updated(true)])
        .when(update(false))
        .then([updated(false)]));
    it('emits nothing when nothing changes', () => spec.given([created]).when(update(false)).then([]));
    it('emits nothing when an earlier update already set the value', () =>
      spec
        .given([created, updated(true)])
        .when(update(true))
        .then([]));
    it('refuses to update an unknown org', () => spec.given([]).when(update(true)).thenThrows('not_found'));
  });
});
