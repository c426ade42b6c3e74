import { TOPICS } from '#platform/contracts';
import { RpcClient, type RpcClientOptions } from '#platform/kafka';
import { log } from '#platform/service-kit';
import { appAccessConsumer } from './app-status/app-access.projection';
import { SERVICES_THE_GATEWAY_CALLS, type GatewayConfig } from './gateway.config';

/** The gateway's inbox consumers. */
export const GATEWAY_CONSUMERS = [appAccessConsumer];

/** What every replica reads itself (a group per process) to keep its key and app caches true. */
export const cacheTopics = (): string[] => [TOPICS.gatewayEvents, TOPICS.profileEvents];

/** The gateway's RPC client: every service but itself, replies read on the replica's own partition (ADR 0203). */
export function gatewayRpcClient(config: GatewayConfig, replyPartition: number, onCall?: RpcClientOptions['onCall']): RpcClient {
  return new RpcClient({
    brokers: config.kafkaBrokers,
    instanceId: config.instanceId,
    services: SERVICES_THE_GATEWAY_CALLS,
    timeoutMs: config.rpcTimeoutMs,
    sealer: config.secretKeys,
    kafka: config.kafkaSecurity,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    replyPartition,
    onError: (error) => log('error', 'rpc client error', { error: String((error as Error)?.message ?? error) }),
    onCall,
  });
}
