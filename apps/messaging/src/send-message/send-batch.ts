import { appUserIdFor, type SendMessageOutcome } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { PipelinedTransaction, type GroupOutcome } from '#platform/postgres';
import type { ServiceRuntime } from '#platform/service-kit';
import { messageDecider, type MessageCommand } from '../messages/message.decider';
import { newOutboundMessages } from '../messages/message.projection';
import type { MessageEvent } from '../messages/message.state';
import { replyWindowOpen, utcDay } from '../messages/send-rules';
import type { MessagingConfig } from '../messaging.config';
import { handover } from './message-handover';
import {
  businessInitiatedStatements,
  claimStatement,
  countersStatement,
  dayCounters,
  factsStatement,
  heldStatement,
  mediaStatement,
  mediaWanted,
  QUOTA_GUARD,
  recipientsByEmailStatement,
  releaseStatements,
  settleStatements,
} from './send-batch.sql';
import { mediaFiles, withFacts, type FactsRow } from './send-facts';
import { claimKey, dayKey, rowKey, userKey } from './send-keys';
import type { Addressed, ClaimedSend, PendingSend } from './send-message.types';
import { replayOutcome, type HeldRow } from './send-replay';

/**
 * One batch of sends (group commit), decided together in one transaction; see SendMessageHandler.
 * Returns each send's outcome by its position in the batch. The D8 counters are read unlocked, so
 * batches of one app in several replicas do not queue on its counter row; a batch whose count
 * another batch raised past the quota meanwhile fails the guard and is decided again, locked (ADR 0199).
 */
export async function sendBatch(runtime: ServiceRuntime, config: MessagingConfig, batch: PendingSend[]): Promise<GroupOutcome<SendMessageOutcome>[]> {
  try {
    return await decideBatch(runtime, config, batch, false);
  } catch (error) {
    if (!isQuotaGuardViolation(error)) throw error;
    return decideBatch(runtime, config, batch, true);
  }
}

function isQuotaGuardViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23514' && (error as { constraint?: unknown })?.constraint === QUOTA_GUARD;
}

async function decideBatch(
  runtime: ServiceRuntime,
  config: MessagingConfig,
  batch: PendingSend[],
  lockCounters: boolean,
): Promise<GroupOutcome<SendMessageOutcome>[]> {
  const outcomes: GroupOutcome<SendMessageOutcome>[] = new Array(batch.length);
  const sends = batch.map((send, at) => ({ ...send, at }));
  await PipelinedTransaction.run(runtime.em(), async (tx) => {
    const addressed = await address(config, tx, sends);
    // One round trip: the claims, whoever else holds a key, every send's D9 facts and media, and the
    // D8 counters (when locked, to commit; claims, then counters, each in key order: batches never wait in a circle).
    const counters = dayCounters(sends);
    const media = mediaWanted(sends);
    const [, heldRows, factRows, counterRows, mediaRows] = await tx.query([
      claimStatement(sends),
      heldStatement(sends),
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

    const refused: PendingSend[] = [];
    const refuse = (send: PendingSend & { at: number }, error: unknown) => {
      outcomes[send.at] = { ok: false, error };
      refused.push(send);
    };
    const found = withFacts(claimed, addressed, factRows as FactsRow[], mediaFiles(mediaRows ?? []));
    const withFactsAt = new Set(found.map((send) => send.at));
    for (const send of claimed) if (!withFactsAt.has(send.at)) refuse(send, missingApp());
    const candidates: ClaimedSend[] = [];
    for (const send of found) {
      // Counts only grow: a send refused with none of them counted is refused whatever they are (D9 checks them last).
      const decision = decideSend(send, 0, []);
      if (decision instanceof DomainError) refuse(send, decision);
      else candidates.push(send);
    }

    // D7's facts, loaded only for the sends that may be business-initiated (the decider has the last word).
    const businessInitiated = await businessInitiatedSends(
      tx,
      candidates.filter((send) => send.facts.recipient && !replyWindowOpen(send.facts.lastUserMessageAt, send.now)),
    );
    const acceptedToday = new Map(counterRows.map((row) => [rowKey(row.app_id, row.day), Number(row.accepted)]));
    // In arrival order, each send counting the ones accepted before it in this batch.
    candidates.sort((a, b) => a.at - b.at);
    const businessInitiatedHere = new Map<string, Date[]>();
    const accepted: (ClaimedSend & { events: MessageEvent[] })[] = [];
    for (const send of candidates) {
      const day = dayKey(send);
      const user = userKey(send);
      const decision = decideSend(send, acceptedToday.get(day) ?? 0, [...(businessInitiated.get(send.at) ?? []), ...(businessInitiatedHere.get(user) ?? [])]);
      if (decision instanceof DomainError) {
        refuse(send, decision);
        continue;
      }
      accepted.push({ ...send, events: decision });
      acceptedToday.set(day, (acceptedToday.get(day) ?? 0) + 1);
      if (isBusinessInitiated(decision)) businessInitiatedHere.set(user, [...(businessInitiatedHere.get(user) ?? []), send.now]);
    }

    // One more round trip writes everything and commits: events, outbox rows, message rows, counts, released keys.
    const { stored, statements: appended } = runtime.eventStore.appendStatements(
      accepted.map((send) => ({
        streamId: `message-${send.messageId}`,
        expectedVersion: 0,
        events: send.events,
        meta: { now: send.now, appId: send.request.appId, correlationId: send.caller.requestId ?? null, causationId: send.caller.requestId ?? null },
        alsoPublish: (events) => [handover(events, send.request.appId, send.file?.handedOver ?? [])],
        trace: send.trace,
      })),
      // The busiest writer of the database: its relay is woken in-process at the commit, not by a NOTIFY that every service's listener would take.
      { committedBy: tx },
    );
    const messages = newOutboundMessages(stored.flat());
    await tx.commit([...appended, ...(messages ? [messages] : []), ...settleStatements(counters, accepted, lockCounters), ...releaseStatements(refused)]);
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

/** When each send's app last sent business-initiated messages to its user (the 24 h before the send), under the user's lock (businessInitiatedStatements). */
async function businessInitiatedSends(tx: PipelinedTransaction, sends: ClaimedSend[]): Promise<Map<number, Date[]>> {
  const sentAt = new Map<number, Date[]>();
  if (sends.length === 0) return sentAt;
  const [, rows] = await tx.query(businessInitiatedStatements(sends));
  for (const row of rows)
    sentAt.set(
      row.at,
      (row.sent_at as number[]).map((ms) => new Date(ms)),
    );
  return sentAt;
}

function command(send: ClaimedSend): Extract<MessageCommand, { type: 'SendMessage' }> {
  const body = send.request.body;
  return {
    type: 'SendMessage',
    data: {
      messageId: send.messageId,
      type: body.type,
      text: body.text ?? null,
      media: send.file?.listed ?? [],
      clientReference: body.clientReference ?? null,
      facts: send.facts,
    },
    metadata: { now: send.now },
  };
}

/** The decider's answer to the send given the D7 and D8 facts: its events, or the DomainError refusing it. */
function decideSend(send: ClaimedSend, acceptedToday: number, businessInitiatedSentAt: Date[]): MessageEvent[] | DomainError {
  send.facts.dailyUsage = { day: utcDay(send.now), accepted: acceptedToday };
  send.facts.businessInitiatedSentAt = businessInitiatedSentAt;
  try {
    return messageDecider.decide(command(send), messageDecider.initialState());
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

function isBusinessInitiated(events: MessageEvent[]): boolean {
  return events.some((event) => event.type === 'MessageAccepted' && event.data.businessInitiated);
}

function missingApp(): DomainError {
  return new DomainError('internal_error', 'The app has not reached the messaging service yet; retry with the same Idempotency-Key.');
}
