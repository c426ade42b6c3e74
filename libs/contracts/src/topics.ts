/**
 * Prefix of every topic and consumer group (env KAFKA_NAMESPACE, default none), so that stacks
 * sharing one broker (dev, tests, benchmarks) never consume or answer each other's messages.
 */
export function kafkaNamespace(): string {
  return process.env.KAFKA_NAMESPACE ?? '';
}

const BASE_TOPICS = {
  messagingEvents: 'messaging.events',
  consentEvents: 'consent.events',
  mediaEvents: 'media.events',
  profileEvents: 'profile.events',
  gatewayEvents: 'gateway.events',
  webhooksEvents: 'webhooks.events',
  /** chat product → platform: what users do. */
  chatUserEvents: 'chat.user-events',
  /** platform → chat product: messages handed over for delivery. */
  chatOutbound: 'chat.outbound',
} as const;

/** Domain topics (names include the namespace): events kept forever so any projection can be rebuilt from offset 0. */
export const TOPICS = Object.defineProperties(
  {} as { readonly [K in keyof typeof BASE_TOPICS]: string },
  Object.fromEntries(Object.entries(BASE_TOPICS).map(([k, name]) => [k, { enumerable: true, get: () => kafkaNamespace() + name }])),
);
export type DomainTopic = string;
/** A domain topic by its key in TOPICS (`messagingEvents`, ...). */
export type DomainTopicKey = keyof typeof BASE_TOPICS;

/** A domain topic's name under a given namespace (TOPICS uses the process's own). */
export function domainTopicName(key: DomainTopicKey, namespace = kafkaNamespace()): string {
  return namespace + BASE_TOPICS[key];
}

/** The services that answer request/reply calls from the gateway. */
export const RPC_SERVICES = ['messaging', 'consent', 'media', 'profile', 'webhooks', 'chat-sim', 'gateway'] as const;
export type RpcService = (typeof RPC_SERVICES)[number];

/** Request topic of a service; the reply topic is `<request topic>.reply` (the @nestjs/microservices convention). */
export function rpcTopic(service: RpcService, namespace = kafkaNamespace()): string {
  return `${namespace}${service}.rpc`;
}
export function rpcReplyTopic(service: RpcService, namespace = kafkaNamespace()): string {
  return `${rpcTopic(service, namespace)}.reply`;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  config: Record<string, string>;
}

/** Partitions of every topic; the reply topics need at least as many as there may be gateway replicas. */
export const DOMAIN_TOPIC_PARTITIONS = 6;
export const RPC_TOPIC_PARTITIONS = 6;

/** Every topic the platform uses, with partitions, retention and cleanup policy. */
export function allTopicSpecs(): TopicSpec[] {
  const domain = Object.values(TOPICS).map((name) => ({
    name,
    partitions: DOMAIN_TOPIC_PARTITIONS,
    config: { 'retention.ms': '-1', 'cleanup.policy': 'delete' },
  }));
  // Requests and replies are worthless after the caller's timeout; keep them minutes, not days.
  const rpc = RPC_SERVICES.flatMap((service) =>
    [rpcTopic(service), rpcReplyTopic(service)].map((name) => ({
      name,
      partitions: RPC_TOPIC_PARTITIONS,
      config: { 'retention.ms': '300000', 'segment.ms': '60000', 'cleanup.policy': 'delete' },
    })),
  );
  return [...domain, ...rpc];
}
