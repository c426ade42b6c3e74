import { admitSignInRequest, windowOverIfStartedBy } from './sign-in-client-limit.rule';
import { REQUESTS_PER_CLIENT } from './sign-in.decider';

describe('the per-client sign-in limit', () => {
  it(`admits the first ${REQUESTS_PER_CLIENT} requests of a window and refuses the next, whoever they name`, () => {
    for (let n = 1; n <= REQUESTS_PER_CLIENT; n++) expect(() => admitSignInRequest(n)).not.toThrow();
    expect(() => admitSignInRequest(REQUESTS_PER_CLIENT + 1)).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    expect(() => admitSignInRequest(1000)).toThrow(expect.objectContaining({ code: 'rate_limited' }));
  });

  it('ends a window 15 minutes after it started', () => {
    expect(windowOverIfStartedBy(new Date('2026-05-01T10:15:00Z'))).toEqual(new Date('2026-05-01T10:00:00Z'));
  });
});
