import { apiKeyRequestIssues } from './api-keys';

describe('apiKeyRequestIssues', () => {
  it('takes an environment alone (every scope, no expiry) and a full request', () => {
    expect(apiKeyRequestIssues({ environment: 'sandbox' })).toEqual([]);
    expect(apiKeyRequestIssues({ environment: 'live', scopes: ['messages:send', 'consents:read'], expiresAt: '2027-01-01T00:00:00.000Z' })).toEqual([]);
    expect(apiKeyRequestIssues({ environment: 'live', expiresAt: '2027-01-01T00:00+02:00' })).toEqual([]);
    expect(apiKeyRequestIssues({ environment: 'live', expiresAt: null })).toEqual([]);
  });

  it('names each field that breaks a rule', () => {
    expect(apiKeyRequestIssues({ environment: 'production' })).toEqual([{ field: 'environment', issue: 'must be sandbox or live' }]);
    expect(apiKeyRequestIssues({ environment: 'sandbox', scopes: [] })).toEqual([{ field: 'scopes', issue: 'must list at least one scope' }]);
    expect(apiKeyRequestIssues({ environment: 'sandbox', scopes: ['messages:send', 'admin'] })).toEqual([
      { field: 'scopes', issue: 'must be scopes of the API' },
    ]);
    expect(apiKeyRequestIssues({ environment: 'sandbox', scopes: ['messages:send', 'messages:send'] })).toEqual([
      { field: 'scopes', issue: 'must not repeat a scope' },
    ]);
    for (const expiresAt of ['2027-01-01', 'tomorrow', 42, '2027-13-45T00:00:00Z']) {
      expect(apiKeyRequestIssues({ environment: 'sandbox', expiresAt })).toEqual([{ field: 'expiresAt', issue: 'must be an ISO 8601 date and time' }]);
    }
  });
});
