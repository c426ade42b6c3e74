/**
 * Every request/reply operation of every service, with what the caller sends and what the service
 * answers (ADR 0173). The gateway's `RpcClient.call(service, op, …)` and a service's
 * `RpcDispatcher.register(op, …)` are both typed by this map, so a renamed operation or field fails
 * to compile on both sides. Payloads still cross the network: handlers keep their runtime checks,
 * and the types describe what a well-formed caller sends. Replies that are a public API resource
 * are typed as the service builds them; the JSON Schemas in public-api/ are what the API promises.
 * Each service's operations and the resources they carry are in rpc/<service>.operations.ts; this
 * file composes them into the map and its helpers.
 */
import type { RpcService } from './topics';
import type { CommonOperations } from './rpc/common.operations';
import type { MessagingOperations } from './rpc/messaging.operations';
import type { MediaOperations } from './rpc/media.operations';
import type { ProfileOperations } from './rpc/profile.operations';
import type { ConsentOperations } from './rpc/consent.operations';
import type { WebhooksOperations } from './rpc/webhooks.operations';
import type { ChatSimOperations } from './rpc/chat-sim.operations';
import type { GatewayOperations } from './rpc/gateway.operations';
import type { TemplateOperations } from './rpc/template.operations';

export * from './rpc/common.operations';
export * from './rpc/messaging.operations';
export * from './rpc/media.operations';
export * from './rpc/profile.operations';
export * from './rpc/consent.operations';
export * from './rpc/webhooks.operations';
export * from './rpc/chat-sim.operations';
export * from './rpc/gateway.operations';
export * from './rpc/template.operations';

/** Each service's operations, by the service's name in RPC_SERVICES. */
export interface RpcOperations {
  messaging: MessagingOperations & TemplateOperations & CommonOperations;
  consent: ConsentOperations & CommonOperations;
  media: MediaOperations & CommonOperations;
  profile: ProfileOperations & CommonOperations;
  webhooks: WebhooksOperations & CommonOperations;
  'chat-sim': ChatSimOperations & CommonOperations;
  gateway: GatewayOperations & CommonOperations;
}

/** The operations a service answers (for a union of services, those every one of them answers). */
export type RpcOperationName<S extends RpcService> = keyof RpcOperations[S] & string;

/** What the caller of `op` on `S` sends. */
export type RpcRequestOf<S extends RpcService, O extends RpcOperationName<S>> = RpcOperations[S][O] extends { request: infer R } ? R : never;

/** What `op` on `S` answers. */
export type RpcReplyOf<S extends RpcService, O extends RpcOperationName<S>> = RpcOperations[S][O] extends { reply: infer R } ? R : never;

/** Every operation name of every service, as a value (the types are erased at run time). */
type OperationNames = { [S in RpcService]: Record<RpcOperationName<S>, true> };

/**
 * The operations each service must answer, listed so a service can check at start that it registered
 * a handler for every one: a name missing here or left over is a compile error, a handler missing in
 * the service refuses the start (`startNestService`).
 */
export const RPC_OPERATION_NAMES: { [S in RpcService]: readonly RpcOperationName<S>[] } = (() => {
  const common = { 'clock.offset': true, 'events.awaitApplied': true } as const;
  const names: OperationNames = {
    messaging: {
      ...common,
      'messages.send': true,
      'messages.heldKey': true,
      'messages.get': true,
      'apps.awaitVersion': true,
      'apps.quotaUsed': true,
      'apps.messageCounts': true,
      // Message templates (architecture section 13).
      'templates.create': true,
      'templates.list': true,
      'templates.get': true,
      'templates.update': true,
      'templates.delete': true,
      'templates.review': true,
    },
    media: { ...common, 'media.create': true, 'media.get': true, 'media.prepare': true },
    profile: {
      ...common,
      'apps.create': true,
      'apps.get': true,
      'apps.changeStatus': true,
      'apps.setVerification': true,
      'apps.update': true,
      'profile.get': true,
      'profile.update': true,
      'orgs.exists': true,
    },
    consent: { ...common, 'users.get': true, 'consents.list': true, 'optinLinks.create': true, 'optinLinks.describe': true, 'userActions.settle': true },
    webhooks: {
      ...common,
      'endpoints.create': true,
      'endpoints.list': true,
      'endpoints.get': true,
      'endpoints.update': true,
      'endpoints.delete': true,
      'endpoints.verify': true,
      'endpoints.test': true,
      'endpoints.rotateSecret': true,
      'deliveries.list': true,
      'deliveries.replay': true,
      'deliveries.attempts': true,
      'deliveries.dailyCounts': true,
      'endpoints.health': true,
      'listen.open': true,
      'listen.poll': true,
      'events.list': true,
      'events.get': true,
      'endpoints.recover': true,
    },
    'chat-sim': {
      ...common,
      'orgs.create': true,
      'orgs.update': true,
      'orgs.get': true,
      'users.create': true,
      'users.update': true,
      'users.get': true,
      'sim.sendMessage': true,
      'sim.receipt': true,
      'sim.inbox': true,
      'sim.openLink': true,
      'sim.allowLink': true,
      'sim.appAction': true,
      'sim.inviteTester': true,
    },
    gateway: { ...common, 'keys.create': true, 'keys.list': true, 'keys.revoke': true, 'requests.list': true, 'requests.get': true },
  };
  const namesOf = <S extends RpcService>(service: S) => Object.keys(names[service]) as RpcOperationName<S>[];
  return {
    messaging: namesOf('messaging'),
    media: namesOf('media'),
    profile: namesOf('profile'),
    consent: namesOf('consent'),
    webhooks: namesOf('webhooks'),
    'chat-sim': namesOf('chat-sim'),
    gateway: namesOf('gateway'),
  };
})();
