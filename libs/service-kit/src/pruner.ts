import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type Type } from '@nestjs/common';
import type { TableRetention } from '#platform/postgres';
import type { BackgroundJob } from './background-job';
import { pruningJob, retentionJob, type CountPruned } from './pruning-job';
import { ServiceRuntime } from './service-runtime';

/** What a service prunes on a timer: tables past their retention, or a prune of its own. */
export type PrunerOptions = { name: string; everyMs: number } & (
  | { tables: readonly TableRetention[] }
  /** For what a table's age alone cannot say (rows some other row still needs); counts what it removes by table. */
  | { prune: (runtime: ServiceRuntime, count: CountPruned) => Promise<void> }
);

/** A provider that runs its service's pruning job while the service runs. */
export interface PrunerProvider extends OnModuleInit, OnApplicationShutdown {
  readonly job: BackgroundJob;
}

/**
 * The Nest provider of a service's pruning: every `everyMs` and whenever the test clock jumps, it
 * deletes what is past its retention and counts it in `rows_pruned_total{table}` (pruningJob); it
 * starts with the module and stops on shutdown. A service declares one as
 * `export class XPruner extends Pruner({ name, everyMs, tables }) {}` and lists it as a provider.
 */
export function Pruner(options: PrunerOptions): Type<PrunerProvider> {
  @Injectable()
  class ServicePruner implements PrunerProvider {
    readonly job: BackgroundJob;

    constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {
      const pruned = runtime.metrics.rowsPruned;
      this.job =
        'tables' in options
          ? retentionJob({ name: options.name, tables: options.tables, em: () => runtime.em(), clock: runtime.clock, pruned })
          : pruningJob({ name: options.name, pruned, prune: (count) => options.prune(runtime, count) });
    }

    onModuleInit(): void {
      this.job.start(options.everyMs, this.runtime.clock);
    }

    onApplicationShutdown(): void {
      this.job.stop();
    }
  }
  return ServicePruner;
}
