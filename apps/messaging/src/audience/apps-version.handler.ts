import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { pollUntil, ServiceRuntime } from '#platform/service-kit';
import { appVersionStatement } from './apps-version.sql';

/** Admin calls that change an app return once messaging's projection of apps has the change too. */
@Injectable()
export class AppsVersionHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
  ) {}

  onModuleInit(): void {
    this.rpc.register('apps.awaitVersion', async (p) => ({
      caughtUp: await pollUntil(
        async () => {
          const [row] = await runStatement<{ version: number }>(this.runtime.em(), appVersionStatement(p.appId));
          return (row?.version ?? 0) >= p.version;
        },
        Math.max(1000, this.runtime.config.rpcTimeoutMs - 1000),
        10,
      ),
    }));
  }
}
