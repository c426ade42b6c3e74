import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ID_PREFIX,
  newId,
  randomBase62,
  WEBHOOKS,
  type CreateWebhookEndpointCall,
  type DomainEvent,
  type RpcCaller,
  type RpcReplyOf,
  type UpdateWebhookEndpointCall,
  type WebhookEndpoint,
  type WebhookEndpointRef,
  type WebhookEndpointWithSecret,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { runStatement } from '#platform/postgres';
import { decideInTransaction, handleCommand, type AppendMeta } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { currentTraceparent, ServiceRuntime, type SecretKeyRing } from '#platform/service-kit';
import { openCredential, sealCredential, type CredentialKind } from '../endpoints/endpoint-credentials';
import { createDeliveries, storePublicEvent } from '../deliveries/delivery.records';
import { endpointDecider, type EndpointCommand, type HandshakeResult } from '../endpoints/endpoint.decider';
import { projectEndpointEvents } from '../endpoints/endpoint.projection';
import { publicEndpoint, type EndpointRow } from '../endpoints/endpoint.records';
import { WebhookNetwork } from '../network/webhook-network';
import { envelopeOf } from '../public-events/public-event.mapper';
import { newWebhookSecret } from '../signing/webhook-signature';
import type { CheckedTarget } from '../url-safety/url-safety';
import {
  appEndpointsStatement,
  appRegistrationLockStatement,
  endpointCountStatement,
  endpointStatement,
  insertCredentialsStatement,
  rotateSecretStatement,
  setVerifyTokenStatement,
  verifyTokenStatement,
} from './endpoints.sql';

/** Constant-time equality of two strings of any length (their hashes are compared). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * /webhooks (D20–D22, D26): endpoints are event-sourced (stream `endpoint-<id>`); the URL check and
 * the handshake are I/O and run before the decision, outside any transaction; the secret and the
 * verify token live in endpoint_credentials, written in the transaction of the decision.
 */
@Injectable()
export class EndpointsHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
    @Inject(WebhookNetwork) private readonly network: WebhookNetwork,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'endpoints.create': (p, caller) => this.create(p, caller),
      'endpoints.list': (p) => this.list(String(p.appId)),
      'endpoints.get': (p) => this.get(p),
      'endpoints.update': (p, caller) => this.update(p, caller),
      'endpoints.delete': (p, caller) => this.delete(p, caller),
      'endpoints.verify': (p, caller) => this.verify(p, caller),
      'endpoints.test': (p, caller) => this.test(p, caller),
      'endpoints.rotateSecret': (p, caller) => this.rotateSecret(p, caller),
    });
  }

  async create(p: CreateWebhookEndpointCall, caller: RpcCaller): Promise<WebhookEndpointWithSecret> {
    // Cheap refusals first: no DNS or handshake for an app that is at its limit.
    if ((await this.countEndpoints(this.runtime.em(), p.appId)) >= WEBHOOKS.maxEndpointsPerApp) throw new DomainError('subscription_limit_reached');
    const target = await this.checkedUrl(p.url);
    const handshake = await this.handshake(target, p.verifyToken);
    const now = this.runtime.clock.now();
    const endpointId = newId(ID_PREFIX.webhookEndpoint, now.getTime());
    const secret = newWebhookSecret();
    await this.runtime.em().transactional(async (tx) => {
      await runStatement(tx, appRegistrationLockStatement(p.appId));
      const endpointCount = await this.countEndpoints(tx, p.appId);
      await decideInTransaction({
        em: tx,
        eventStore: this.runtime.eventStore,
        decider: endpointDecider,
        streamId: `endpoint-${endpointId}`,
        command: {
          type: 'RegisterEndpoint',
          data: { endpointId, url: target.url, events: [...new Set(p.events)], endpointCount, handshake },
          metadata: { now },
        },
        meta: this.meta(p.appId, caller, now),
        newStream: true,
        project: (projectTx, stored) => projectEndpointEvents(projectTx, stored),
      });
      await runStatement(
        tx,
        insertCredentialsStatement(endpointId, this.seal(endpointId, 'verify-token', p.verifyToken), this.seal(endpointId, 'signing-secret', secret)),
      );
    });
    return { ...(await this.get({ appId: p.appId, endpointId })), secret };
  }

  async list(appId: string): Promise<{ data: WebhookEndpoint[] }> {
    const rows = await runStatement<EndpointRow>(this.runtime.em(), appEndpointsStatement(appId));
    return { data: rows.map(publicEndpoint) };
  }

  async get(ref: WebhookEndpointRef): Promise<WebhookEndpoint> {
    const rows = await runStatement<EndpointRow>(this.runtime.em(), endpointStatement(ref.appId, String(ref.endpointId)));
    if (!rows[0]) throw new DomainError('not_found', 'No such webhook endpoint.');
    return publicEndpoint(rows[0]);
  }

  async update(p: UpdateWebhookEndpointCall, caller: RpcCaller): Promise<WebhookEndpoint> {
    await this.get(p);
    let url: { url: string; handshake: HandshakeResult } | undefined;
    if (p.url !== undefined) {
      if (p.verifyToken === undefined) throw DomainError.invalid([{ field: 'verifyToken', issue: 'is required with a new url' }]);
      const target = await this.checkedUrl(p.url);
      url = { url: target.url, handshake: await this.handshake(target, p.verifyToken) };
    }
    const events = p.events ? [...new Set(p.events)] : undefined;
    await this.decide(p, { type: 'UpdateEndpoint', data: { events, url }, metadata: { now: this.runtime.clock.now() } }, caller, async (tx) => {
      if (p.verifyToken !== undefined) {
        await runStatement(tx, setVerifyTokenStatement(p.endpointId, this.seal(p.endpointId, 'verify-token', p.verifyToken)));
      }
    });
    return this.get(p);
  }

  async delete(p: WebhookEndpointRef, caller: RpcCaller): Promise<{ deleted: true }> {
    await this.get(p);
    await this.decide(p, { type: 'DeleteEndpoint', data: {}, metadata: { now: this.runtime.clock.now() } }, caller);
    return { deleted: true };
  }

  async verify(p: WebhookEndpointRef & { verifyToken: string }, caller: RpcCaller): Promise<WebhookEndpoint> {
    const endpoint = await this.get(p);
    const stored = await this.credentials(p.endpointId);
    const storedToken = openCredential(this.secretKeys, p.endpointId, 'verify-token', stored.verify_token);
    const tokenMatches = sameSecret(String(p.verifyToken), storedToken);
    let handshake: HandshakeResult | null = null;
    if (tokenMatches) {
      const check = await this.network.urlSafety.check(endpoint.url);
      handshake = check.ok ? await this.handshake(check.target, storedToken) : { ok: false, error: check.message };
    }
    await this.decide(p, { type: 'VerifyEndpoint', data: { tokenMatches, handshake }, metadata: { now: this.runtime.clock.now() } }, caller);
    return this.get(p);
  }

  /** D26: a signed webhook.test to this endpoint only; 409 subscription_not_verified unless it is enabled. */
  async test(p: WebhookEndpointRef, caller: RpcCaller): Promise<RpcReplyOf<'webhooks', 'endpoints.test'>> {
    await this.get(p);
    const now = this.runtime.clock.now();
    const eventId = newId(ID_PREFIX.event, now.getTime());
    // The decision appends nothing; it only refuses an endpoint that is not enabled. A test event
    // racing a disable is harmless: the worker abandons deliveries to endpoints that are not enabled.
    await this.decide(p, { type: 'SendTestEvent', data: {}, metadata: { now } }, caller);
    const envelope = envelopeOf(eventId, 'webhook.test', p.appId, now.toISOString(), {
      message: 'This is a test event from the webhook endpoint test call.',
      subscriptionId: p.endpointId,
      nonce: randomBase62(24),
    });
    // The test delivery's attempts continue the trace of the test call.
    const traceparent = currentTraceparent() ?? null;
    const deliveryId = await this.runtime.em().transactional(async (tx) => {
      await storePublicEvent(tx, {
        eventId,
        appId: p.appId,
        type: 'webhook.test',
        payload: JSON.stringify(envelope),
        requiresMedia: [],
        sourceEventId: null,
        now,
      });
      const [id] = await createDeliveries(tx, { appId: p.appId, eventId, type: 'webhook.test', endpointIds: [p.endpointId], now, traceparent });
      return id;
    });
    return { deliveryId, eventId };
  }

  async rotateSecret(p: WebhookEndpointRef, caller: RpcCaller): Promise<RpcReplyOf<'webhooks', 'endpoints.rotateSecret'>> {
    await this.get(p);
    const secret = newWebhookSecret();
    let previousSecretExpiresAt = '';
    await this.decide(p, { type: 'RotateSecret', data: {}, metadata: { now: this.runtime.clock.now() } }, caller, async (tx, events) => {
      previousSecretExpiresAt = (events[0].data as { previousSecretExpiresAt: string }).previousSecretExpiresAt;
      await runStatement(tx, rotateSecretStatement(p.endpointId, this.seal(p.endpointId, 'signing-secret', secret), new Date(previousSecretExpiresAt)));
    });
    return { secret, previousSecretExpiresAt };
  }

  private get secretKeys(): SecretKeyRing {
    if (!this.runtime.secretKeys) throw new Error('the webhook dispatcher runs with a key ring');
    return this.runtime.secretKeys;
  }

  private seal(endpointId: string, kind: CredentialKind, plaintext: string): string {
    return sealCredential(this.secretKeys, endpointId, kind, plaintext);
  }

  private meta(appId: string, caller: RpcCaller, now: Date): AppendMeta {
    return { now, appId, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null };
  }

  /** Decides a command on the endpoint's stream; `alongside` writes what belongs to the same transaction. */
  private async decide(
    ref: WebhookEndpointRef,
    command: EndpointCommand,
    caller: RpcCaller,
    alongside?: (tx: EntityManager, events: DomainEvent[]) => Promise<void>,
  ): Promise<void> {
    await handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: endpointDecider,
      streamId: `endpoint-${ref.endpointId}`,
      command,
      meta: this.meta(ref.appId, caller, command.metadata.now),
      project: (tx, stored) => projectEndpointEvents(tx, stored),
      alongside,
    });
  }

  private async countEndpoints(em: EntityManager, appId: string): Promise<number> {
    const [{ count }] = await runStatement<{ count: string }>(em, endpointCountStatement(appId));
    return Number(count);
  }

  private async credentials(endpointId: string): Promise<{ verify_token: string }> {
    const rows = await runStatement<{ verify_token: string }>(this.runtime.em(), verifyTokenStatement(endpointId));
    if (!rows[0]) throw new DomainError('not_found', 'No such webhook endpoint.');
    return rows[0];
  }

  /** The URL rules and SSRF check of registration: a refusal is the 422 webhook_url_* code. */
  private async checkedUrl(url: string): Promise<CheckedTarget> {
    const check = await this.network.urlSafety.check(url);
    if (!check.ok) throw new DomainError(check.code, check.message);
    return check.target;
  }

  /** D22: the handshake goes to the address just checked, never to a second lookup. */
  private handshake(target: CheckedTarget, verifyToken: string): Promise<HandshakeResult> {
    return this.network.http.handshake({ target, url: target.url, verifyToken, challenge: randomBase62(32) });
  }
}
