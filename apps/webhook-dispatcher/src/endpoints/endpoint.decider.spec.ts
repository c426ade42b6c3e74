import { deciderSpecification } from '#platform/decider/testing';
import { endpointDecider, type EndpointCommand, type HandshakeResult } from './endpoint.decider';
import type { EndpointEvent } from './endpoint.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };

const spec = deciderSpecification(endpointDecider);
const endpointId = 'we_1';
const url = 'https://hooks.example.com/in';
const ok: HandshakeResult = { ok: true };
const failed: HandshakeResult = { ok: false, error: 'answered 404' };

const register = (over: Partial<Extract<EndpointCommand, { type: 'RegisterEndpoint' }>['data']> = {}): EndpointCommand => ({
  type: 'RegisterEndpoint',
  data: { endpointId, url, events: ['message.status'], endpointCount: 0, handshake: ok, ...over },
  metadata,
});
const registered: EndpointEvent = { type: 'WebhookEndpointRegistered', data: { endpointId, url, events: ['message.status'] } };
const verified: EndpointEvent = { type: 'WebhookEndpointVerified', data: { endpointId } };
const verificationFailed: EndpointEvent = { type: 'WebhookEndpointVerificationFailed', data: { endpointId, error: 'answered 404' } };
const disabled: EndpointEvent = {
  type: 'WebhookEndpointDisabled',
  data: { endpointId, url, reason: 'every delivery failed for 3 days', failingSince: '2026-01-01T00:00:00.000Z', lastError: 'answered 503' },
};
const deleted: EndpointEvent = { type: 'WebhookEndpointDeleted', data: { endpointId } };
const disable = (now: string): EndpointCommand => ({
  type: 'DisableFailingEndpoint',
  data: { failingSince: '2026-01-01T00:00:00.000Z', lastError: 'answered 503' },
  metadata: { now: new Date(now) },
});

describe('Webhook endpoint decider', () => {
  describe('RegisterEndpoint (POST /webhooks, D21)', () => {
    it('registers and enables the endpoint when the handshake succeeded', () => spec.given([]).when(register()).then([registered, verified]));

    it('registers it pending_verification with the handshake error otherwise', () =>
      spec
        .given([])
        .when(register({ handshake: failed }))
        .then([registered, verificationFailed]));

    it('allows the fifth endpoint of an app', () =>
      spec
        .given([])
        .when(register({ endpointCount: 4 }))
        .then([registered, verified]));

    it('refuses a sixth endpoint with 409 subscription_limit_reached', () =>
      spec
        .given([])
        .when(register({ endpointCount: 5 }))
        .thenThrows('subscription_limit_reached'));

    it('never registers the same stream twice', () => spec.given([registered]).when(register()).thenThrows('invalid_transition'));
  });

  describe('VerifyEndpoint (POST …/verify)', () => {
    const verify = (tokenMatches: boolean, handshake: HandshakeResult | null): EndpointCommand => ({
      type: 'VerifyEndpoint',
      data: { tokenMatches, handshake },
      metadata,
    });

    it('refuses a wrong token with 422 verify_token_mismatch', () => spec.given([registered]).when(verify(false, null)).thenThrows('verify_token_mismatch'));

    it('enables a pending endpoint whose handshake now succeeds', () => spec.given([registered, verificationFailed]).when(verify(true, ok)).then([verified]));

    it('re-enables a disabled endpoint (D25)', () => spec.given([registered, verified, disabled]).when(verify(true, ok)).then([verified]));

    it('records a failed handshake; the state stays as it was', () => {
      spec.given([registered, verified]).when(verify(true, failed)).then([verificationFailed]);
      const state = [registered, verified, verificationFailed].reduce(endpointDecider.evolve, endpointDecider.initialState());
      expect(state.status).toBe('enabled');
    });

    it('answers 404 for a deleted endpoint', () => spec.given([registered, deleted]).when(verify(true, ok)).thenThrows('not_found'));
  });

  describe('UpdateEndpoint (PATCH)', () => {
    it('changes the events', () =>
      spec
        .given([registered, verified])
        .when({ type: 'UpdateEndpoint', data: { events: ['message.received', 'consent.updated'] }, metadata })
        .then([{ type: 'WebhookEndpointEventsChanged', data: { endpointId, events: ['message.received', 'consent.updated'] } }]));

    it('records nothing when the events are the same set', () =>
      spec
        .given([registered, verified])
        .when({ type: 'UpdateEndpoint', data: { events: ['message.status'] }, metadata })
        .then([]));

    it('a new url re-verifies: pending until its handshake succeeds', () => {
      const newUrl = 'https://other.example.com/hooks';
      spec
        .given([registered, verified])
        .when({ type: 'UpdateEndpoint', data: { url: { url: newUrl, handshake: failed } }, metadata })
        .then([{ type: 'WebhookEndpointUrlChanged', data: { endpointId, url: newUrl } }, verificationFailed]);
      const state = [
        registered,
        verified,
        { type: 'WebhookEndpointUrlChanged', data: { endpointId, url: newUrl } } as EndpointEvent,
        verificationFailed,
      ].reduce(endpointDecider.evolve, endpointDecider.initialState());
      expect(state).toEqual({ status: 'pending_verification', endpoint: { endpointId, url: newUrl, events: ['message.status'] } });
    });

    it('a new url whose handshake succeeds is enabled again', () =>
      spec
        .given([registered, verified])
        .when({ type: 'UpdateEndpoint', data: { url: { url, handshake: ok } }, metadata })
        .then([{ type: 'WebhookEndpointUrlChanged', data: { endpointId, url } }, verified]));
  });

  describe('SendTestEvent (POST …/test)', () => {
    it('is allowed for an enabled endpoint', () => spec.given([registered, verified]).when({ type: 'SendTestEvent', data: {}, metadata }).then([]));

    it('answers 409 subscription_not_verified for a pending endpoint', () =>
      spec.given([registered, verificationFailed]).when({ type: 'SendTestEvent', data: {}, metadata }).thenThrows('subscription_not_verified'));

    it('answers 409 subscription_not_verified for a disabled endpoint', () =>
      spec.given([registered, verified, disabled]).when({ type: 'SendTestEvent', data: {}, metadata }).thenThrows('subscription_not_verified'));
  });

  describe('RotateSecret', () => {
    it('keeps the previous secret signing for 24 hours from now', () =>
      spec
        .given([registered, verified])
        .when({ type: 'RotateSecret', data: {}, metadata: { now: new Date('2026-03-01T10:00:00.000Z') } })
        .then([{ type: 'WebhookEndpointSecretRotated', data: { endpointId, previousSecretExpiresAt: '2026-03-02T10:00:00.000Z' } }]));
  });

  describe('DisableFailingEndpoint (D25)', () => {
    it('disables an endpoint failing for 3 days', () => spec.given([registered, verified]).when(disable('2026-01-04T00:00:00.000Z')).then([disabled]));

    it('leaves one failing for less than 3 days alone', () => spec.given([registered, verified]).when(disable('2026-01-03T23:59:59.000Z')).then([]));

    it('does nothing to an endpoint that is not enabled', () =>
      spec.given([registered, verified, disabled]).when(disable('2026-01-09T00:00:00.000Z')).then([]));
  });

  describe('DeleteEndpoint', () => {
    it('deletes', () => spec.given([registered, verified]).when({ type: 'DeleteEndpoint', data: {}, metadata }).then([deleted]));

    it('answers 404 the second time', () => spec.given([registered, deleted]).when({ type: 'DeleteEndpoint', data: {}, metadata }).thenThrows('not_found'));

    it('answers 404 for an endpoint that never existed', () => spec.given([]).when({ type: 'DeleteEndpoint', data: {}, metadata }).thenThrows('not_found'));
  });
});
