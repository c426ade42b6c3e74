import { validateDomainEvent } from './event-validator';

const envelope = { eventId: 'e1', type: 'OrgCreated', occurredAt: '2026-11-01T00:00:00Z', streamId: 'org-1', streamVersion: 1 };

describe('validateDomainEvent', () => {
  it('accepts an event whose data matches its schema', () => {
    expect(validateDomainEvent({ ...envelope, data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: true } })).toBeNull();
  });
  it('names what is wrong with the data', () => {
    expect(validateDomainEvent({ ...envelope, data: { orgId: 'org_1', name: 'Acme' } })).toMatch(/allowsExternalBusinesses/);
    expect(validateDomainEvent({ ...envelope, data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: true, extra: 1 } })).toMatch(/additional/);
  });
  it('refuses broken envelopes', () => {
    expect(validateDomainEvent(null)).toMatch(/not an object/);
    expect(validateDomainEvent({ ...envelope, streamVersion: undefined })).toMatch(/streamVersion/);
  });
  it('does not mistake Object.prototype members for schemas', () => {
    expect(validateDomainEvent({ ...envelope, type: 'constructor', data: {} })).toBeNull();
    expect(validateDomainEvent({ ...envelope, type: 'toString', data: {} })).toBeNull();
  });
});
