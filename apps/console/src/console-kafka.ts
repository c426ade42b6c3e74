import type { DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { RpcClient } from '#platform/kafka';
import { log, type AnyConsumerSpec, type BaseConfig, type ServiceRuntime } from '#platform/service-kit';
import { appsConsumer } from './apps/apps.projection';
import type { ConsoleSettings } from './console.config';
import { endpointDisabledConsumer } from './endpoint-alerts/endpoint-disabled.consumer';

/** The services the console calls (ADR 0185). */
export const SERVICES_THE_CONSOLE_CALLS = ['gateway', 'webhooks', 'messaging', 'consent', 'profile', 'media'] as const;

/** The console's RPC client: a reply partition of its own beside the gateways' (ADR 0203), reply groups `gateway-replies-console-…`. */
export function consoleRpcClient(base: BaseConfig, settings: ConsoleSettings, replyPartition?: number): RpcClient {
  return new RpcClient({
    brokers: base.kafkaBrokers,
    instanceId: `console-${base.instanceId}`,
    services: SERVICES_THE_CONSOLE_CALLS,
    timeoutMs: base.rpcTimeoutMs,
    sealer: settings.secretKeys,
    kafka: base.kafkaSecurity,
    sessionTimeoutMs: base.kafkaSessionTimeoutMs,
    replyPartition,
    onError: (error) => log('error', 'rpc client error', { error: String((error as Error)?.message ?? error) }),
  });
}

/** The console's inbox consumers: its apps and owners, the endpoint alerts it emails, and the messages per day it charts. */
export function consoleConsumers(runtime: ServiceRuntime, settings: ConsoleSettings): AnyConsumerSpec[] {
  return [appsConsumer(runtime), endpointDisabledConsumer(runtime, { consoleUrl: settings.consoleUrl, mailFrom: settings.mail.from })];
}

/** It publishes no events yet. */
export const consoleOutboxRoute = (_event: DomainEvent): OutboxRoute | null => null;
