import { WEBHOOKS, type PublicEventType } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveEndpoint, initialEndpointState, type EndpointEvent, type EndpointState } from './endpoint.state';

/** What a handshake gave (D22); run by the handler before deciding, since it is I/O. */
export type HandshakeResult = { ok: true } | { ok: false; error: string };

export type EndpointCommand =
  /** POST /webhooks. `endpointCount`: the app's endpoints before this one, counted under the app's lock. */
  | Command<'RegisterEndpoint', { endpointId: string; url: string; events: PublicEventType[]; endpointCount: number; handshake: HandshakeResult }>
  /** POST …/verify: `tokenMatches` compares the given token with the stored one (constant time, by the handler). */
  | Command<'VerifyEndpoint', { tokenMatches: boolean; handshake: HandshakeResult | null }>
  /** PATCH: a new url comes with the handshake the handler ran against it with the new token. */
  | Command<'UpdateEndpoint', { events?: PublicEventType[]; url?: { url: string; handshake: HandshakeResult } }>
  | Command<'RotateSecret', Record<string, never>>
  /** POST …/test: only an enabled endpoint gets test events. */
  | Command<'SendTestEvent', Record<string, never>>
  /** D25: every delivery failed since `failingSince`. */
  | Command<'DisableFailingEndpoint', { failingSince: string; lastError: string | null }>
  | Command<'DeleteEndpoint', Record<string, never>>;

/** D25: an endpoint whose every delivery has failed for 3 days (WEBHOOKS.disableAfterFailingMs) is disabled. */
export function failingLongEnoughToDisable(failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= WEBHOOKS.disableAfterFailingMs;
}

type Existing = Extract<EndpointState, { endpoint: unknown }>;

function existing(state: EndpointState): Existing {
  if (state.status === 'absent' || state.status === 'deleted') throw new DomainError('not_found', 'No such webhook endpoint.');
  return state;
}

function handshakeEvents(endpointId: string, handshake: HandshakeResult): EndpointEvent[] {
  return handshake.ok
    ? [{ type: 'WebhookEndpointVerified', data: { endpointId } }]
    : [{ type: 'WebhookEndpointVerificationFailed', data: { endpointId, error: handshake.error } }];
}

function sameEvents(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((type) => b.includes(type));
}

export function decideEndpoint(command: EndpointCommand, state: EndpointState): EndpointEvent[] {
  switch (command.type) {
    case 'RegisterEndpoint': {
      if (state.status !== 'absent') throw new DomainError('invalid_transition', 'The endpoint exists already.');
      const d = command.data;
      if (d.endpointCount >= WEBHOOKS.maxEndpointsPerApp) throw new DomainError('subscription_limit_reached');
      return [
        { type: 'WebhookEndpointRegistered', data: { endpointId: d.endpointId, url: d.url, events: d.events } },
        ...handshakeEvents(d.endpointId, d.handshake),
      ];
    }
    case 'VerifyEndpoint': {
      const current = existing(state);
      if (!command.data.tokenMatches) throw new DomainError('verify_token_mismatch');
      if (!command.data.handshake) throw new Error('VerifyEndpoint needs the handshake result once the token matched');
      const { endpointId } = current.endpoint;
      // A failed re-check of an enabled endpoint records the error but keeps it enabled: a receiver's
      // hiccup during a manual check should not stop its deliveries.
      return handshakeEvents(endpointId, command.data.handshake);
    }
    case 'UpdateEndpoint': {
      const current = existing(state);
      const { endpointId } = current.endpoint;
      const events: EndpointEvent[] = [];
      if (command.data.events && !sameEvents(command.data.events, current.endpoint.events)) {
        events.push({ type: 'WebhookEndpointEventsChanged', data: { endpointId, events: command.data.events } });
      }
      if (command.data.url) {
        events.push(
          { type: 'WebhookEndpointUrlChanged', data: { endpointId, url: command.data.url.url } },
          ...handshakeEvents(endpointId, command.data.url.handshake),
        );
      }
      return events;
    }
    case 'RotateSecret': {
      const { endpointId } = existing(state).endpoint;
      const previousSecretExpiresAt = new Date(command.metadata.now.getTime() + WEBHOOKS.rotationOverlapMs).toISOString();
      return [{ type: 'WebhookEndpointSecretRotated', data: { endpointId, previousSecretExpiresAt } }];
    }
    case 'SendTestEvent': {
      const current = existing(state);
      if (current.status !== 'enabled') throw new DomainError('subscription_not_verified');
      return [];
    }
    case 'DisableFailingEndpoint': {
      if (state.status !== 'enabled') return [];
      const { failingSince, lastError } = command.data;
      if (!failingLongEnoughToDisable(new Date(failingSince), command.metadata.now)) return [];
      const { endpointId, url } = state.endpoint;
      return [{ type: 'WebhookEndpointDisabled', data: { endpointId, url, reason: 'every delivery failed for 3 days', failingSince, lastError } }];
    }
    case 'DeleteEndpoint': {
      const { endpointId } = existing(state).endpoint;
      return [{ type: 'WebhookEndpointDeleted', data: { endpointId } }];
    }
    default:
      return assertNever(command);
  }
}

export const endpointDecider: Decider<EndpointState, EndpointCommand, EndpointEvent> = {
  initialState: initialEndpointState,
  decide: decideEndpoint,
  evolve: evolveEndpoint,
};
