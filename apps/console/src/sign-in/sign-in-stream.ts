import type { DomainEvent } from '#platform/contracts';
import { tokenHash } from '../sessions/secret-tokens';
import type { SignInEvent } from './sign-in.state';

/** The sign-in stream of a person: named by the hash of the address, so the address is not in its name. */
export const personStream = (email: string) => `person-${tokenHash(email)}`;

/** The events of a sign-in stream, as the event store hands them back. */
export const isSignInEvent = (event: DomainEvent): event is DomainEvent & SignInEvent => event.type === 'SignInLinkIssued' || event.type === 'SignInLinkUsed';
