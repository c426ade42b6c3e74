import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { DeliveriesHandler } from './deliveries/deliveries.handler';
import { DeliveryWorker } from './deliveries/delivery.worker';
import { ListenSessionsHandler } from './listen/listen-sessions.handler';
import { EndpointsHandler } from './manage-endpoints/endpoints.handler';
import { WebhookNetwork } from './network/webhook-network';

@Module({
  providers: [
    {
      provide: WebhookNetwork,
      useFactory: (runtime: ServiceRuntime) => WebhookNetwork.fromEnv(runtime.config.env, runtime.config.production),
      inject: [ServiceRuntime],
    },
    EndpointsHandler,
    DeliveriesHandler,
    DeliveryWorker,
    ListenSessionsHandler,
  ],
})
export class WebhookDispatcherModule {}
