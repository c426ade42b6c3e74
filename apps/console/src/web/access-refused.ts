import type { Viewer } from './layout';

/**
 * A request refused from its head alone (ChangeGuard, AppMemberGuard): nobody signed in (sent to
 * sign in), no valid CSRF token, or not a member of the app it names (404, as for no such app).
 */
export class AccessRefused extends Error {
  constructor(
    readonly reason: 'signed-out' | 'csrf' | 'not-member',
    readonly viewer: Viewer | null,
  ) {
    super(reason === 'signed-out' ? 'Sign in first.' : reason === 'csrf' ? 'This form expired.' : 'There is no such app.');
  }
}
