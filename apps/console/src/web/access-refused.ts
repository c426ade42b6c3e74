import type { Viewer } from './layout';

/** A request refused from its head alone (ChangeGuard): nobody signed in (sent to sign in), or no valid CSRF token. */
export class AccessRefused extends Error {
  constructor(
    readonly reason: 'signed-out' | 'csrf',
    readonly viewer: Viewer | null,
  ) {
    super(reason === 'signed-out' ? 'Sign in first.' : 'This form expired.');
  }
}
