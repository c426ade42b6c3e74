import { businessProfilePatchIssues } from './business-profile';

describe('businessProfilePatchIssues', () => {
  it('takes a patch within the limits, and nulls that clear a field', () => {
    expect(businessProfilePatchIssues({ displayName: 'Ac', about: 'a'.repeat(1024), websiteUrl: 'https://acme.example.com/about', category: 'c' })).toEqual([]);
    expect(businessProfilePatchIssues({ about: null, websiteUrl: null, category: null })).toEqual([]);
    expect(businessProfilePatchIssues({})).toEqual([]);
  });

  it('names each field past its limit, at the edges', () => {
    expect(businessProfilePatchIssues({ displayName: 'A' })).toEqual([{ field: 'displayName', issue: 'must be 2 to 60 characters' }]);
    expect(businessProfilePatchIssues({ displayName: 'A'.repeat(61) })).toEqual([{ field: 'displayName', issue: 'must be 2 to 60 characters' }]);
    expect(businessProfilePatchIssues({ about: 'a'.repeat(1025) })).toEqual([{ field: 'about', issue: 'must be at most 1024 characters' }]);
    expect(businessProfilePatchIssues({ category: 'c'.repeat(101) })).toEqual([{ field: 'category', issue: 'must be 1 to 100 characters' }]);
    for (const websiteUrl of ['acme.example.com', 'ftp://acme.example.com', 'https://localhost', `https://acme.example.com/${'a'.repeat(2048)}`]) {
      expect(businessProfilePatchIssues({ websiteUrl })).toEqual([{ field: 'websiteUrl', issue: 'must be an absolute http(s) URL' }]);
    }
  });
});
