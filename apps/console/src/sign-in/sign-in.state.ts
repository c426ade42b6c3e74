/**
 * The sign-in of one person (stream `person-<hash of the address>`): the one-time links emailed to
 * them and their use. Links are kept by the hash of their token; the token itself is only in the
 * email.
 */
export type SignInEvent =
  | { type: 'SignInLinkIssued'; data: { email: string; tokenHash: string; issuedAt: string; expiresAt: string } }
  | { type: 'SignInLinkUsed'; data: { email: string; tokenHash: string; usedAt: string; sessionHash: string; sessionExpiresAt: string } };

export interface SignInLink {
  expiresAt: string;
  usedAt: string | null;
}

export interface SignInState {
  /** Every link issued, by token hash. */
  links: Record<string, SignInLink>;
  /** When links were issued (for the per-address limit). */
  issuedAt: string[];
}

export const initialSignInState = (): SignInState => ({ links: {}, issuedAt: [] });

export function evolveSignIn(state: SignInState, event: SignInEvent): SignInState {
  switch (event.type) {
    case 'SignInLinkIssued':
      return {
        links: { ...state.links, [event.data.tokenHash]: { expiresAt: event.data.expiresAt, usedAt: null } },
        issuedAt: [...state.issuedAt, event.data.issuedAt],
      };
    case 'SignInLinkUsed': {
      const link = state.links[event.data.tokenHash];
      return link ? { ...state, links: { ...state.links, [event.data.tokenHash]: { ...link, usedAt: event.data.usedAt } } } : state;
    }
  }
}
