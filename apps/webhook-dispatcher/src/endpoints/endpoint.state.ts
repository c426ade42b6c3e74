import type { PublicEventType, WebhookEndpointDisabled, WebhookEndpointState } from '#platform/contracts';

/**
 * Events of the WebhookEndpoint aggregate (stream `endpoint-<endpointId>`). Only
 * WebhookEndpointDisabled leaves the service (D25); the others are private. Secrets and verify
 * tokens never appear in events: they live in endpoint_credentials, written in the same transaction.
 */
export type EndpointEvent =
  | { type: 'WebhookEndpointRegistered'; data: { endpointId: string; url: string; events: PublicEventType[] } }
  /** The handshake answered with the challenge: the endpoint receives events from now on. */
  | { type: 'WebhookEndpointVerified'; data: { endpointId: string } }
  | { type: 'WebhookEndpointVerificationFailed'; data: { endpointId: string; error: string } }
  | { type: 'WebhookEndpointEventsChanged'; data: { endpointId: string; events: PublicEventType[] } }
  /** A new URL needs a new handshake: pending_verification until it succeeds. */
  | { type: 'WebhookEndpointUrlChanged'; data: { endpointId: string; url: string } }
  | { type: 'WebhookEndpointSecretRotated'; data: { endpointId: string; previousSecretExpiresAt: string } }
  | WebhookEndpointDisabled
  | { type: 'WebhookEndpointDeleted'; data: { endpointId: string } };

export interface EndpointFacts {
  endpointId: string;
  url: string;
  events: PublicEventType[];
}

export type EndpointState = { status: 'absent' } | { status: WebhookEndpointState; endpoint: EndpointFacts } | { status: 'deleted' };

export const initialEndpointState = (): EndpointState => ({ status: 'absent' });

export function evolveEndpoint(state: EndpointState, event: EndpointEvent): EndpointState {
  switch (event.type) {
    case 'WebhookEndpointRegistered':
      return { status: 'pending_verification', endpoint: { ...event.data } };
    case 'WebhookEndpointDeleted':
      return { status: 'deleted' };
  }
  if (state.status === 'absent' || state.status === 'deleted') return state;
  switch (event.type) {
    case 'WebhookEndpointVerified':
      return { ...state, status: 'enabled' };
    case 'WebhookEndpointVerificationFailed':
    case 'WebhookEndpointSecretRotated':
      return state;
    case 'WebhookEndpointEventsChanged':
      return { ...state, endpoint: { ...state.endpoint, events: event.data.events } };
    case 'WebhookEndpointUrlChanged':
      return { status: 'pending_verification', endpoint: { ...state.endpoint, url: event.data.url } };
    case 'WebhookEndpointDisabled':
      return { ...state, status: 'disabled' };
  }
}
