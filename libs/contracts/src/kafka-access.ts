import { domainTopicName, kafkaNamespace, rpcReplyTopic, rpcTopic, type DomainTopicKey, type RpcService } from './topics';

/** Every app that talks to Kafka; in production each is a Kafka user of its own (a Strimzi KafkaUser). */
export const KAFKA_APPS = ['gateway', 'messaging', 'consent', 'media', 'profile', 'webhook-dispatcher', 'console', 'chat-sim'] as const;
export type KafkaApp = (typeof KAFKA_APPS)[number];

/** What one app does on Kafka; group names are the app's own (`<app>.<consumer>`, as ServiceRuntime names them). */
export interface KafkaAccess {
  /** Domain topics its outbox relay publishes to. */
  produces: readonly DomainTopicKey[];
  /** Its inbox consumers by name: group `<app>.<name>`, reading these domain topics. */
  consumers: Readonly<Record<string, readonly DomainTopicKey[]>>;
  /** Its per-process consumers (caches) by name: groups `<app>.<name>.<instance id>`. */
  broadcasts: Readonly<Record<string, readonly DomainTopicKey[]>>;
  /** The RPC service it answers: reads `<service>.rpc` in group `<service>.rpc-servers`, writes `<service>.rpc.reply`. */
  serves: RpcService | null;
  /** The RPC services it calls: writes their `.rpc` topics and reads their `.rpc.reply` topics, in groups of its own per process. */
  calls: readonly RpcService[];
  /** The prefix of those reply groups (RpcClient: `gateway-replies-<instance id>`). */
  replyGroupPrefix?: string;
  /** Runs in dev and test only (no production Kafka user). */
  devOnly?: boolean;
}

/**
 * Which app produces to which topic and consumes which topic in which group: the one map production's
 * Kafka ACLs are generated from (deploy/overlays/prod/kafka-users.yaml, ADR 0212). The services check
 * what they start against it (ServiceRuntime, RpcClient), and each app's kafka-access.spec.ts checks
 * what its code declares, so a topic the map does not give an app fails tests before production.
 * Transactional producers: none (no transactional ids). The test clock's per-process consumer of
 * gateway.events runs with CLOCK_MODE=test only, which production refuses: no ACL.
 */
export const KAFKA_ACCESS: Readonly<Record<KafkaApp, KafkaAccess>> = {
  gateway: {
    produces: ['gatewayEvents'],
    consumers: { 'app-access': ['profileEvents'] },
    broadcasts: { caches: ['gatewayEvents', 'profileEvents'] },
    serves: 'gateway',
    calls: ['messaging', 'consent', 'media', 'profile', 'webhooks', 'chat-sim'],
    replyGroupPrefix: 'gateway-replies-',
  },
  messaging: {
    produces: ['messagingEvents', 'chatOutbound'],
    consumers: { 'user-events': ['chatUserEvents'], consent: ['consentEvents'], apps: ['profileEvents'], media: ['mediaEvents'] },
    broadcasts: {},
    serves: 'messaging',
    calls: [],
  },
  consent: {
    produces: ['consentEvents'],
    consumers: { 'user-actions': ['chatUserEvents'], apps: ['profileEvents'] },
    broadcasts: {},
    serves: 'consent',
    calls: [],
  },
  media: {
    produces: ['mediaEvents'],
    consumers: { 'user-media': ['chatUserEvents'] },
    broadcasts: {},
    serves: 'media',
    calls: [],
  },
  profile: {
    produces: ['profileEvents'],
    consumers: { orgs: ['chatUserEvents'] },
    broadcasts: {},
    serves: 'profile',
    calls: [],
  },
  'webhook-dispatcher': {
    produces: ['webhooksEvents'],
    consumers: { 'public-events': ['messagingEvents', 'consentEvents', 'profileEvents'], 'media-registry': ['mediaEvents'] },
    broadcasts: {},
    serves: 'webhooks',
    calls: [],
  },
  console: {
    produces: [],
    consumers: { apps: ['profileEvents'], 'endpoint-alerts': ['webhooksEvents'] },
    broadcasts: {},
    serves: null,
    calls: ['gateway', 'webhooks', 'messaging', 'consent', 'profile', 'media'],
    // The console's RpcClient instance ids start with `console-` (ADR 0203).
    replyGroupPrefix: 'gateway-replies-console-',
  },
  'chat-sim': {
    produces: ['chatUserEvents'],
    consumers: { handover: ['chatOutbound'] },
    broadcasts: {},
    serves: 'chat-sim',
    calls: [],
    devOnly: true,
  },
};

export function isKafkaApp(name: string): name is KafkaApp {
  return (KAFKA_APPS as readonly string[]).includes(name);
}

/** Something an app does on Kafka, as its code starts it. */
export type KafkaUse =
  | { kind: 'consumer'; name: string; topics: readonly string[] }
  | { kind: 'broadcast'; name: string; topics: readonly string[] }
  | { kind: 'produce'; topic: string }
  | { kind: 'serve'; service: RpcService }
  | { kind: 'call'; service: RpcService; replyGroup: string };

/**
 * Why the map does not let `app` do `use`, or null when it does. Topic names are compared under the
 * given namespace (the process's KAFKA_NAMESPACE by default), as the code builds them.
 */
export function kafkaUseRefusal(app: string, use: KafkaUse, namespace = kafkaNamespace()): string | null {
  if (!isKafkaApp(app)) return `${app} is not an app of the Kafka access map (libs/contracts kafka-access.ts)`;
  const access = KAFKA_ACCESS[app];
  const names = (keys: readonly DomainTopicKey[] | undefined) => new Set((keys ?? []).map((key) => domainTopicName(key, namespace)));
  const where = `(libs/contracts kafka-access.ts, ${app})`;
  switch (use.kind) {
    case 'consumer':
    case 'broadcast': {
      const declared = (use.kind === 'consumer' ? access.consumers : access.broadcasts)[use.name];
      if (!declared) return `${app} has no ${use.kind} ${use.name} ${where}`;
      const allowed = names(declared);
      const extra = use.topics.filter((topic) => !allowed.has(topic));
      return extra.length > 0 ? `${app}'s ${use.kind} ${use.name} may not read ${extra.join(', ')} ${where}` : null;
    }
    case 'produce':
      return names(access.produces).has(use.topic) ? null : `${app} may not publish to ${use.topic} ${where}`;
    case 'serve':
      return access.serves === use.service ? null : `${app} may not answer ${use.service} requests ${where}`;
    case 'call':
      if (!access.calls.includes(use.service)) return `${app} may not call ${use.service} ${where}`;
      return access.replyGroupPrefix && use.replyGroup.startsWith(namespace + access.replyGroupPrefix)
        ? null
        : `${app}'s reply group ${use.replyGroup} is not under ${namespace}${access.replyGroupPrefix ?? '(none)'} ${where}`;
  }
}

/** Refuses, at start, what the map does not let `app` do: production's ACLs would refuse it there. */
export function assertKafkaUses(app: string, uses: readonly KafkaUse[], namespace = kafkaNamespace()): void {
  const refusals = uses.map((use) => kafkaUseRefusal(app, use, namespace)).filter((refusal): refusal is string => refusal !== null);
  if (refusals.length > 0) throw new Error(`Kafka use outside the access map: ${refusals.join('; ')}`);
}

/**
 * What an app's code does (its uses) against the map: what the map refuses, and what the map grants
 * that the code never uses (a grant wider than needed). Both empty: the map is the app's code.
 */
export function kafkaUsesCheck(app: KafkaApp, uses: readonly KafkaUse[], namespace = kafkaNamespace()): { refused: string[]; unused: string[] } {
  const refused = uses.map((use) => kafkaUseRefusal(app, use, namespace)).filter((refusal): refusal is string => refusal !== null);
  const access = KAFKA_ACCESS[app];
  const named = (kind: 'consumer' | 'broadcast') => new Set(uses.flatMap((use) => (use.kind === kind ? [use.name] : [])));
  const produced = new Set(uses.flatMap((use) => (use.kind === 'produce' ? [use.topic] : [])));
  const served = new Set(uses.flatMap((use) => (use.kind === 'serve' ? [use.service] : [])));
  const called = new Set(uses.flatMap((use) => (use.kind === 'call' ? [use.service] : [])));
  const unused = [
    ...Object.keys(access.consumers)
      .filter((name) => !named('consumer').has(name))
      .map((name) => `consumer ${name}`),
    ...Object.keys(access.broadcasts)
      .filter((name) => !named('broadcast').has(name))
      .map((name) => `broadcast ${name}`),
    ...access.produces.filter((key) => !produced.has(domainTopicName(key, namespace))).map((key) => `publishing to ${domainTopicName(key, namespace)}`),
    ...(access.serves && !served.has(access.serves) ? [`answering ${access.serves}`] : []),
    ...access.calls.filter((service) => !called.has(service)).map((service) => `calling ${service}`),
  ];
  return { refused, unused };
}

/** The topics an app touches (reads, writes, or makes sure exist at start), by name under `namespace`. */
export function kafkaTopicsOf(app: KafkaApp, namespace = kafkaNamespace()): string[] {
  const access = KAFKA_ACCESS[app];
  const domain = [...access.produces, ...Object.values(access.consumers).flat(), ...Object.values(access.broadcasts).flat()];
  const rpc = [...(access.serves ? [access.serves] : []), ...access.calls];
  return [
    ...new Set([...domain.map((key) => domainTopicName(key, namespace)), ...rpc.flatMap((s) => [rpcTopic(s, namespace), rpcReplyTopic(s, namespace)])]),
  ].sort();
}

export type KafkaOperation = 'Create' | 'Describe' | 'Read' | 'Write' | 'IdempotentWrite';

/** One ACL as Strimzi's `simple` authorization writes it (KafkaUser spec.authorization.acls). */
export interface KafkaAcl {
  resource: { type: 'topic' | 'group'; name: string; patternType: 'literal' | 'prefix' } | { type: 'cluster' };
  operations: KafkaOperation[];
}

const OPERATION_ORDER: KafkaOperation[] = ['Create', 'Describe', 'Read', 'Write', 'IdempotentWrite'];

/**
 * The ACLs of an app's Kafka user: per topic what it reads or writes (and Create, since a service
 * creates a topic it finds missing), per group the ones it joins, and on the cluster IdempotentWrite
 * (every service's producer is idempotent). Nothing else: no other topic, group or cluster right.
 */
export function kafkaAcls(app: KafkaApp, namespace = ''): KafkaAcl[] {
  const access = KAFKA_ACCESS[app];
  const topics = new Map<string, Set<KafkaOperation>>();
  const grant = (topic: string, operation: 'Read' | 'Write') => {
    const operations = topics.get(topic) ?? new Set<KafkaOperation>(['Create', 'Describe']);
    operations.add(operation);
    topics.set(topic, operations);
  };
  for (const key of access.produces) grant(domainTopicName(key, namespace), 'Write');
  for (const key of [...Object.values(access.consumers).flat(), ...Object.values(access.broadcasts).flat()]) grant(domainTopicName(key, namespace), 'Read');
  if (access.serves) {
    grant(rpcTopic(access.serves, namespace), 'Read');
    grant(rpcReplyTopic(access.serves, namespace), 'Write');
  }
  for (const service of access.calls) {
    grant(rpcTopic(service, namespace), 'Write');
    grant(rpcReplyTopic(service, namespace), 'Read');
  }
  const groups: { name: string; patternType: 'literal' | 'prefix' }[] = [
    ...Object.keys(access.consumers).map((name) => ({ name: `${namespace}${app}.${name}`, patternType: 'literal' as const })),
    ...Object.keys(access.broadcasts).map((name) => ({ name: `${namespace}${app}.${name}.`, patternType: 'prefix' as const })),
    ...(access.serves ? [{ name: `${rpcTopic(access.serves, namespace)}-servers`, patternType: 'literal' as const }] : []),
    ...(access.calls.length > 0 && access.replyGroupPrefix ? [{ name: namespace + access.replyGroupPrefix, patternType: 'prefix' as const }] : []),
  ];
  const ordered = (operations: Iterable<KafkaOperation>) => OPERATION_ORDER.filter((operation) => [...operations].includes(operation));
  return [
    ...[...topics.keys()]
      .sort()
      .map((name) => ({ resource: { type: 'topic' as const, name, patternType: 'literal' as const }, operations: ordered(topics.get(name)!) })),
    ...groups
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((group) => ({ resource: { type: 'group' as const, ...group }, operations: ordered(['Describe', 'Read']) })),
    { resource: { type: 'cluster' }, operations: ['IdempotentWrite'] },
  ];
}

/** The Strimzi KafkaUser of an app in production: SCRAM-SHA-512, simple authorization with kafkaAcls. */
export function strimziKafkaUser(app: KafkaApp, namespace = '') {
  return {
    apiVersion: 'kafka.strimzi.io/v1beta2',
    kind: 'KafkaUser',
    metadata: {
      name: app,
      labels: { 'strimzi.io/cluster': 'platform', 'app.kubernetes.io/name': app, 'app.kubernetes.io/part-of': 'business-messaging-platform' },
    },
    spec: { authentication: { type: 'scram-sha-512' }, authorization: { type: 'simple', acls: kafkaAcls(app, namespace) } },
  };
}

/** The apps with a production Kafka user, in the map's order. */
export const PRODUCTION_KAFKA_APPS: readonly KafkaApp[] = KAFKA_APPS.filter((app) => !KAFKA_ACCESS[app].devOnly);
