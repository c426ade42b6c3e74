import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { DeliveriesHandler } from './deliveries/deliveries.handler';
import { DeliveryRetentionPruner } from './deliveries/delivery-retention.pruner';
import { DeliveryWorker } from './deliveries/delivery.worker';
import { DeliveryCountsHandler } from './delivery-counts/delivery-counts.handler';
import { EventsHandler } from './events/events.handler';
import { ListenSessionPruner } from './listen/listen-session.pruner';
import { ListenSessionsHandler } from './listen/listen-sessions.handler';
import { EndpointsHandler } from './manage-endpoints/endpoints.handler';
import { WebhookNetwork } from './network/webhook-network';
import { RecoveriesHandler } from './recoveries/recoveries.handler';

@Module({
  providers: [
    {
      provide: WebhookNetwork,
      useFactory: (runtime: ServiceRuntime) => WebhookNetwork.fromEnv(runtime.config.env, runtime.config.production),
      inject: [ServiceRuntime],
    },
    EndpointsHandler,
    DeliveriesHandler,
    DeliveryCountsHandler,
    DeliveryRetentionPruner,
    DeliveryWorker,
    ListenSessionsHandler,
    ListenSessionPruner,
    EventsHandler,
    RecoveriesHandler,
  ],
})
export class WebhookDispatcherModule {}
