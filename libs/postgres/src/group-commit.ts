import { context, ROOT_CONTEXT } from '@opentelemetry/api';

/** What a batch gives back for one item, in the item's position. */
export type GroupOutcome<Out> = { ok: true; value: Out } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** Items one batch takes at most. */
  maxBatch: number;
  /** Batches running at once: the next one prepares while the last commits. */
  maxConcurrent: number;
}

/**
 * Group commit: concurrent callers' items are applied in shared batches, one transaction and a
 * few multi-row statements per batch instead of per item. Nothing waits for a batch to fill: an
 * item submitted while fewer than `maxConcurrent` batches run starts one at once (alone, on an idle
 * service), and items submitted meanwhile form the next batch. So batches grow with the load and
 * latency does not.
 *
 * A batch that throws (a lost connection, a deadlock) is retried item by item, so one bad item
 * fails only its own caller. Batches run outside any caller's context: work done for many
 * requests is not logged or traced as one of them.
 */
export class GroupCommit<In, Out> {
  private readonly queue: { item: In; resolve: (value: Out) => void; reject: (error: unknown) => void }[] = [];
  private running = 0;

  constructor(
    private readonly apply: (items: In[]) => Promise<GroupOutcome<Out>[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.startBatches();
    });
  }

  private startBatches(): void {
    while (this.running < this.options.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.running++;
      context.with(ROOT_CONTEXT, () => {
        void this.run(batch).finally(() => {
          this.running--;
          this.startBatches();
        });
      });
    }
  }

  private async run(batch: GroupCommit<In, Out>['queue']): Promise<void> {
    let outcomes: GroupOutcome<Out>[];
    try {
      outcomes = await this.apply(batch.map((entry) => entry.item));
      if (outcomes.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${outcomes.length} outcomes`);
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      outcomes = [];
      for (const entry of batch) outcomes.push(await this.applyAlone(entry.item));
    }
    batch.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) entry.resolve(outcome.value);
      else entry.reject(outcome.error);
    });
  }

  private async applyAlone(item: In): Promise<GroupOutcome<Out>> {
    try {
      const [outcome] = await this.apply([item]);
      return outcome;
    } catch (error) {
      return { ok: false, error };
    }
  }
}
