import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Clock } from '#platform/clock';
import type { RpcService } from '#platform/contracts';
import { EventStore } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { HealthController } from './health.controller';
import { log } from './logger';
import { rpcControllerFor } from './rpc.controller';
import { ServiceRuntime } from './service-runtime';
import { requireApplied } from './wait-for-applied';

/** Provides the runtime's parts to a service's Nest module, plus health, metrics and its RPC endpoint. */
@Global()
@Module({})
export class ServiceKitModule {
  /** `health: false` leaves /healthz, /readyz and /metrics to a port of their own (startHealthServer). */
  static forRoot(runtime: ServiceRuntime, rpcService?: RpcService, options: { health?: boolean } = {}): DynamicModule {
    // Typed for the operations every service answers; each service's handlers see it as RpcDispatcher<'<service>'>.
    const dispatcher = new RpcDispatcher(
      (error, request) =>
        log('error', 'rpc handler failed', { op: request.op, requestId: request.caller?.requestId, error: String((error as Error)?.stack ?? error) }),
      runtime.secretKeys,
    );
    dispatcher.register('clock.offset', async () => ({ offsetMs: runtime.clock.nowMs() - Date.now(), now: runtime.clock.now().toISOString() }));
    // Lets a caller return only once this service has taken in what the call caused (no sleeps in tests).
    dispatcher.register('events.awaitApplied', async (p) => {
      await requireApplied(runtime, String(p.consumer), Array.isArray(p.events) ? p.events : []);
      return { applied: true };
    });
    return {
      module: ServiceKitModule,
      controllers: [...(options.health === false ? [] : [HealthController]), ...(rpcService ? [rpcControllerFor(rpcService)] : [])],
      providers: [
        { provide: ServiceRuntime, useValue: runtime },
        { provide: Clock, useValue: runtime.clock },
        { provide: EventStore, useValue: runtime.eventStore },
        { provide: RpcDispatcher, useValue: dispatcher },
      ],
      exports: [ServiceRuntime, Clock, EventStore, RpcDispatcher],
    };
  }
}
