import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { context, propagation } from '@opentelemetry/api';
import { ID_PREFIX, IDEMPOTENCY_KEY_TTL_MS, newId, type RpcCaller, type SendMessageCall, type SendMessageOutcome } from '#platform/contracts';
import { GroupCommit, runStatement } from '#platform/postgres';
import { RpcDispatcher } from '#platform/kafka';
import { eventRefsFrom, requireApplied, ServiceRuntime } from '#platform/service-kit';
import { MEDIA_CONSUMER } from '../audience/media.projection';
import { MESSAGING_CONFIG, type MessagingConfig } from '../messaging.config';
import { sendBatch } from './send-batch';
import { heldKeyStatement } from './send-batch.sql';
import { claimKey } from './send-keys';
import type { PendingSend } from './send-message.types';
import { replayOutcome, twinRefusal, type HeldRow } from './send-replay';

/** Sends one batch takes at most; RPC_MAX_IN_FLIGHT (64 by default) bounds what is waiting anyway. */
const MAX_SENDS_PER_BATCH = 100;

/**
 * POST /messages behind the gateway. Concurrent sends are decided in shared batches (group commit):
 * one transaction locks every Idempotency-Key, reads the facts of all sends (D9), locks the D8
 * (and, for business-initiated sends, D7) counters they need, decides each send in arrival order,
 * then appends one MessageSent per send (D3), writes the message rows (holding their keys, ADR
 * 0227), the handoffs to the chat product (chat.outbound, via the outbox) and the counts, a
 * statement for each kind of row. A refused send writes nothing, so its key stays free. The statements go out in two round
 * trips (three with a business-initiated send, one more with an email address), not one each
 * (PipelinedTransaction). On an idle service a batch is one send, so nothing waits for a batch to
 * fill; under load a send costs a share of one commit and of those round trips.
 */
@Injectable()
export class SendMessageHandler implements OnModuleInit {
  // One batch at a time: a second one beside it mostly waits on the first's D8 counter rows (one
  // app's sends all share a row) and splits the load into smaller, costlier batches
  // (docs/adr/0199-sends-decided-in-shared-batches.md).
  private readonly sends = new GroupCommit<PendingSend, SendMessageOutcome>((batch) => sendBatch(this.runtime, this.config, batch), {
    maxBatch: MAX_SENDS_PER_BATCH,
    maxConcurrent: 1,
  });
  /**
   * The sends this process has under way, by app and key: a twin from another request arriving
   * meanwhile is 409 idempotency_in_progress (422 with another body), as architecture section 3 answers a
   * running request, and no batch ever holds two sends of one key. The same request again (a
   * redelivery: its offset was not committed when a server stopped) is answered by the run under
   * way, as a replay. A twin in another process waits on the key's lock for the first to commit,
   * then replays it.
   */
  private readonly running = new Map<string, { bodyHash: string; requestId: string; answer: Promise<SendMessageOutcome> }>();

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
    @Inject(MESSAGING_CONFIG) private readonly config: MessagingConfig,
  ) {}

  onModuleInit(): void {
    this.rpc.register('messages.send', (p, caller) => this.send(p, caller));
    this.rpc.register('messages.heldKey', (p) => this.heldKey(p));
  }

  send(request: SendMessageCall, caller: RpcCaller): Promise<SendMessageOutcome> {
    const key = claimKey(request);
    const twin = this.running.get(key);
    if (twin !== undefined) {
      const again = twin.requestId === caller.requestId && twin.bodyHash === request.bodyHash;
      return again ? twin.answer.then(({ acceptance }) => ({ acceptance, replayed: true })) : Promise.reject(twinRefusal(twin.bodyHash, request.bodyHash));
    }
    const trace: Record<string, string> = {};
    propagation.inject(context.active(), trace);
    const mediaEvents = eventRefsFrom(request.mediaEvents);
    // A media send is decided once the media projection holds the verdict media.prepare just reached
    // (D12): the wait is part of the send, so the gateway makes one call (ADR 0214). It runs under the
    // key's entry in `running`, so a twin arriving meanwhile is answered as above.
    const decided =
      mediaEvents.length === 0
        ? this.submit(request, caller, trace)
        : requireApplied(this.runtime, MEDIA_CONSUMER, mediaEvents).then(() => this.submit(request, caller, trace));
    const answer = decided.finally(() => this.running.delete(key));
    this.running.set(key, { bodyHash: request.bodyHash, requestId: caller.requestId, answer });
    return answer;
  }

  private submit(request: SendMessageCall, caller: RpcCaller, trace: Record<string, string>): Promise<SendMessageOutcome> {
    const now = this.runtime.clock.now();
    return this.sends.submit({ request, caller, now, messageId: newId(ID_PREFIX.message, now.getTime()), trace });
  }

  /**
   * Who holds a key, for a request the gateway refuses before it is sent (an invalid body): architecture
   * section 3 looks the key up (step 6) before it validates the body (step 7), so a key held by
   * another body is 422 whatever this body is, and a running twin 409. `held` is the replay of the
   * holder's acceptance, or null for a free key.
   */
  async heldKey(request: Pick<SendMessageCall, 'appId' | 'idempotencyKey' | 'bodyHash'>): Promise<{ held: SendMessageOutcome | null }> {
    const twin = this.running.get(claimKey(request));
    if (twin !== undefined) throw twinRefusal(twin.bodyHash, request.bodyHash);
    const since = new Date(this.runtime.clock.nowMs() - IDEMPOTENCY_KEY_TTL_MS);
    const [holder] = await runStatement<HeldRow>(this.runtime.em(), heldKeyStatement(request, since));
    if (!holder) return { held: null };
    const outcome = replayOutcome(request, holder);
    if (outcome.ok) return { held: outcome.value };
    throw outcome.error;
  }
}
