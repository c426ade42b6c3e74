import type { RpcCaller, RpcService } from '#platform/contracts';
import type { TestClock } from '#platform/clock';
import { DomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';
import { pollUntil, type ServiceRuntime } from '#platform/service-kit';

/**
 * The Stripe-style test clock (architecture section 7): the new offset is an event on gateway.events that
 * every process follows; the call returns once every service reports the new time.
 */
export class TestClockService {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly clock: TestClock,
    private readonly rpc: RpcClient,
  ) {}

  async advance(seconds: number, caller: RpcCaller, services: readonly RpcService[]): Promise<{ now: string }> {
    const offsetMs = this.clock.offset + seconds * 1000;
    const now = new Date(Date.now() + offsetMs);
    await this.runtime.em().transactional(async (em) => {
      await this.runtime.eventStore.append(em as never, 'test-clock', 'any', [{ type: 'TestClockAdvanced', data: { offsetMs, now: now.toISOString() } }], {
        now,
        appId: null,
        correlationId: caller.requestId,
        causationId: caller.requestId,
      });
    });
    await this.waitFor(async () => this.clock.offset >= offsetMs);
    for (const service of services) {
      await this.waitFor(async () => {
        const reply = await this.rpc.call(service, 'clock.offset', caller, {});
        // A reply is computed from two readings of the time; allow for the milliseconds between them.
        return reply.offsetMs >= offsetMs - 50;
      });
    }
    return { now: this.clock.now().toISOString() };
  }

  private async waitFor(check: () => Promise<boolean>): Promise<void> {
    if (await pollUntil(check, 15_000, 20)) return;
    throw new DomainError('internal_error', 'The clock moved but not every service has followed yet; retry.');
  }
}
