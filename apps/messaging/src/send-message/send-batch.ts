import { appUserIdFor, IDEMPOTENCY_KEY_TTL_MS, type SendMessageOutcome } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { PipelinedTransaction, type GroupOutcome } from '#platform/postgres';
import type { ServiceRuntime } from '#platform/service-kit';
import { newOutboundMessages } from '../messages/message.projection';
import { messageCountsStatements } from '../message-counts/message-counts.sql';
import type { MessageEvent } from '../messages/message.state';
import type { MessagingConfig } from '../messaging.config';
import {
  businessInitiatedStatements,
  countersStatement,
  dayCounters,
  factsStatement,
  heldStatement,
  keyLocksStatement,
  mediaStatement,
  mediaWanted,
  QUOTA_GUARD,
  recipientsByEmailStatement,
  settleStatements,
} from './send-batch.sql';
import { businessInitiatedCountsWanted, decideSendBatch } from './send-batch.decider';
import { businessInitiatedCounts, dayCounts, mediaFiles, sendCommand, withFacts, type FactsRow } from './send-facts';
import { claimKey, rowKey } from './send-keys';
import type { Addressed, ClaimedSend, PendingSend } from './send-message.types';
import { replayOutcome, type HeldRow } from './send-replay';

/**
 * One batch of sends (group commit), decided together in one transaction; see SendMessageHandler.
 * It loads the facts, decideSendBatch (send-batch.decider.ts) decides, and it writes what that
 * returned. Returns each send's outcome by its position in the batch. The D8 counters are read unlocked, so
 * batches of one app in several replicas do not queue on its counter row; a batch whose count
 * another batch raised past the quota meanwhile fails the guard and is decided again, locked (ADR 0199).
 */
export async function sendBatch(runtime: ServiceRuntime, config: MessagingConfig, batch: PendingSend[]): Promise<GroupOutcome<SendMessageOutcome>[]> {
  try {
    return await runBatch(runtime, config, batch, false);
  } catch (error) {
    if (!isQuotaGuardViolation(error)) throw error;
    return runBatch(runtime, config, batch, true);
  }
}

function isQuotaGuardViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23514' && (error as { constraint?: unknown })?.constraint === QUOTA_GUARD;
}

async function runBatch(
  runtime: ServiceRuntime,
  config: MessagingConfig,
  batch: PendingSend[],
  lockCounters: boolean,
): Promise<GroupOutcome<SendMessageOutcome>[]> {
  const outcomes: GroupOutcome<SendMessageOutcome>[] = new Array(batch.length);
  const sends = batch.map((send, at) => ({ ...send, at }));
  await PipelinedTransaction.run(runtime.em(), async (tx) => {
    const addressed = await address(config, tx, sends);
    // One round trip: the key locks, whoever holds a key already, every send's D9 facts and media, and the
    // D8 counters (when locked, to commit; keys, then counters, each in key order: batches never wait in a circle).
    const counters = dayCounters(sends);
    const media = mediaWanted(sends);
    const [, heldRows, factRows, counterRows, mediaRows] = await tx.query([
      keyLocksStatement(sends),
      heldStatement(sends, new Date(Math.min(...sends.map((send) => send.now.getTime())) - IDEMPOTENCY_KEY_TTL_MS)),
      factsStatement(addressed),
      countersStatement(counters, lockCounters),
      ...(media.length > 0 ? [mediaStatement(media)] : []),
    ]);
    const held = new Map(heldRows.map((row) => [rowKey(row.app_id, row.idempotency_key), row as HeldRow]));
    for (const send of sends) {
      const holder = held.get(claimKey(send.request));
      if (holder) outcomes[send.at] = replayOutcome(send.request, holder);
    }
    const claimed = sends.filter((send) => !held.has(claimKey(send.request)));

    // A refused send writes nothing: its key stays free for a corrected retry.
    const refuse = (send: PendingSend & { at: number }, error: unknown) => {
      outcomes[send.at] = { ok: false, error };
    };
    const found = withFacts(claimed, addressed, factRows as FactsRow[], mediaFiles(mediaRows ?? []));
    const withFactsAt = new Set(found.map((send) => send.at));
    for (const send of claimed) if (!withFactsAt.has(send.at)) refuse(send, missingApp());
    const commands = found.map(sendCommand);

    // D7's counts, locked, for the users whose count can decide a send (a round trip only when there is one).
    const wanted = businessInitiatedCountsWanted(commands);
    const [, sentRows] = wanted.length > 0 ? await tx.query(businessInitiatedStatements(wanted)) : [[], []];
    // In arrival order, each send counting the ones accepted before it in this batch.
    const { decisions, consumed } = decideSendBatch(commands, { acceptedOnDay: dayCounts(counterRows), businessInitiated: businessInitiatedCounts(sentRows) });
    const accepted: (ClaimedSend & { events: MessageEvent[] })[] = [];
    found.forEach((send, i) => {
      const decision = decisions[i];
      if (decision.ok) accepted.push({ ...send, events: decision.events });
      else refuse(send, decision.refusal);
    });

    // One more round trip writes everything and commits: events, message rows (with their keys), counts.
    const { stored, statements: appended } = runtime.eventStore.appendStatements(
      accepted.map((send) => ({
        streamId: `message-${send.messageId}`,
        expectedVersion: 0,
        events: send.events,
        meta: { now: send.now, appId: send.request.appId, correlationId: send.caller.requestId ?? null, causationId: send.caller.requestId ?? null },
        trace: send.trace,
      })),
      // The busiest writer of the database: its relay is woken in-process at the commit, not by a NOTIFY that every service's listener would take.
      { committedBy: tx },
    );
    const messages = newOutboundMessages(stored.flat());
    await tx.commit([
      ...appended,
      ...(messages ? [messages] : []),
      ...settleStatements(counters, consumed.acceptedOnDay, lockCounters),
      ...messageCountsStatements(stored.flat()),
    ]);
    accepted.forEach((send) => {
      const body = send.request.body;
      outcomes[send.at] = {
        ok: true,
        value: {
          acceptance: {
            id: send.messageId,
            status: 'accepted',
            appUserId: send.appUserId,
            type: body.type,
            createdAt: send.now.toISOString(),
            clientReference: body.clientReference ?? null,
          },
          replayed: false,
        },
      };
    });
  });
  return outcomes;
}

/** Whom each send is to: an appUserId as given, an email address through messaging's recipients (a round trip only when some send has one). */
async function address(config: MessagingConfig, tx: PipelinedTransaction, sends: (PendingSend & { at: number })[]): Promise<Addressed[]> {
  const emails = [...new Set(sends.flatMap((send) => (typeof send.request.body.to.email === 'string' ? [send.request.body.to.email.toLowerCase()] : [])))];
  const byEmail = new Map<string, string>();
  if (emails.length > 0) {
    const [users] = await tx.query([recipientsByEmailStatement(emails)]);
    for (const user of users) byEmail.set(user.email, user.user_id);
  }
  return sends.map((send) => {
    const to = send.request.body.to;
    if (typeof to.email !== 'string') return { send, userId: null, appUserId: to.appUserId! };
    const userId = byEmail.get(to.email.toLowerCase()) ?? null;
    return { send, userId, appUserId: userId ? appUserIdFor(config.appUserIdSecret, send.request.appId, userId) : '' };
  });
}

function missingApp(): DomainError {
  return new DomainError('internal_error', 'The app has not reached the messaging service yet; retry with the same Idempotency-Key.');
}
