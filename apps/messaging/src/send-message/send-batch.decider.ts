import { carriedAcceptance } from '#platform/contracts';
import type { Command } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { messageDecider, type MessageCommand } from '../messages/message.decider';
import type { MessageEvent } from '../messages/message.state';
import { checkSendBeforeCounts, REPLY_WINDOW_MS, utcDay, type SendFacts, type SendFactsBeforeCounts } from '../messages/send-rules';

/**
 * The rules of a batch of sends (group commit, ADR 0199), pure: each send is decided by the message
 * decider (D9) in arrival order, on the counts stored before the batch plus the sends this batch
 * accepted before it (D7, D8). The handler loads the facts, calls decideSendBatch and writes what it returns.
 */

type SendMessage = Extract<MessageCommand, { type: 'SendMessage' }>;

/** A send of the batch: the message decider's SendMessage without the counts, which the batch keeps. */
export type SendCommand = Command<'SendMessage', Omit<SendMessage['data'], 'facts'> & { facts: SendFactsBeforeCounts }>;

/** The counts as stored before the batch. */
export interface SendBatchFacts {
  /** D8: the accepted sends of an app on a UTC day (`YYYY-MM-DD`); a day not listed has none. */
  acceptedOnDay: readonly { appId: string; day: string; accepted: number }[];
  /**
   * D7: when the app's business-initiated sends to a user were accepted, at least those of the 24 h
   * before each of that user's sends in the batch; a user not listed has none. The handler loads
   * them for every user businessInitiatedCountsWanted names.
   */
  businessInitiated: readonly { appId: string; appUserId: string; sentAt: readonly Date[] }[];
}

/** One send's verdict: its events, or the DomainError refusing it. */
export type SendDecision = { ok: true; events: MessageEvent[] } | { ok: false; refusal: DomainError };

export interface SendBatchDecision {
  /** Each command's verdict, by its position in the batch. */
  decisions: SendDecision[];
  /** What the accepted sends add to the counts: D8 per app and day (with the quota they were decided under), D7 per user. */
  consumed: {
    acceptedOnDay: { appId: string; day: string; accepted: number; dailyQuota: number }[];
    businessInitiated: { appId: string; appUserId: string; sentAt: Date[] }[];
  };
}

/** Decides a batch of sends in arrival order (the order of `commands`), each counting the sends accepted before it. */
export function decideSendBatch(commands: readonly SendCommand[], facts: SendBatchFacts): SendBatchDecision {
  const stored = {
    accepted: new Map(facts.acceptedOnDay.map((row) => [dayKey(row.appId, row.day), row.accepted])),
    businessInitiated: new Map(facts.businessInitiated.map((row) => [userKey(row.appId, row.appUserId), row.sentAt])),
  };
  const consumedDays = new Map<string, { appId: string; day: string; accepted: number; dailyQuota: number }>();
  const consumedUsers = new Map<string, { appId: string; appUserId: string; sentAt: Date[] }>();
  const decisions = commands.map((command): SendDecision => {
    const { app, recipient } = command.data.facts;
    const { now } = command.metadata;
    const day = dayKey(app.appId, utcDay(now));
    // Before the recipient check a send has no user; its D7 list is then never read.
    const user = recipient ? userKey(app.appId, recipient.appUserId) : null;
    const decision = decideOne(command, {
      accepted: (stored.accepted.get(day) ?? 0) + (consumedDays.get(day)?.accepted ?? 0),
      businessInitiatedSentAt: user ? [...(stored.businessInitiated.get(user) ?? []), ...(consumedUsers.get(user)?.sentAt ?? [])] : [],
    });
    if (!decision.ok) return decision;
    const counted = consumedDays.get(day) ?? { appId: app.appId, day: utcDay(now), accepted: 0, dailyQuota: app.dailyQuota };
    consumedDays.set(day, { ...counted, accepted: counted.accepted + 1 });
    if (user && isBusinessInitiated(decision.events)) {
      const sent = consumedUsers.get(user) ?? { appId: app.appId, appUserId: recipient!.appUserId, sentAt: [] };
      consumedUsers.set(user, { ...sent, sentAt: [...sent.sentAt, now] });
    }
    return decision;
  });
  return { decisions, consumed: { acceptedOnDay: [...consumedDays.values()], businessInitiated: [...consumedUsers.values()] } };
}

/**
 * The users whose D7 counts the batch needs, each with the start of the 24 h before its earliest
 * send: those with a business-initiated send that passes every check before the counts (D9), the
 * only sends a count can decide. The others are decided without loading (and locking) any D7 count.
 */
export function businessInitiatedCountsWanted(commands: readonly SendCommand[]): { appId: string; appUserId: string; since: Date }[] {
  const wanted = new Map<string, { appId: string; appUserId: string; since: Date }>();
  for (const command of commands) {
    const { facts, type } = command.data;
    if (!passesChecksBeforeCounts(type, facts, command.metadata.now)?.businessInitiated) continue;
    const { appId } = facts.app;
    const { appUserId } = facts.recipient!;
    const since = new Date(command.metadata.now.getTime() - REPLY_WINDOW_MS);
    const key = userKey(appId, appUserId);
    const earlier = wanted.get(key);
    if (!earlier || since < earlier.since) wanted.set(key, { appId, appUserId, since });
  }
  return [...wanted.values()];
}

/** checkSendBeforeCounts's answer, or null for a send it refuses. */
function passesChecksBeforeCounts(...args: Parameters<typeof checkSendBeforeCounts>): { businessInitiated: boolean } | null {
  try {
    return checkSendBeforeCounts(...args);
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/** The message decider's verdict on one send, given its counts. */
function decideOne(command: SendCommand, counts: { accepted: number; businessInitiatedSentAt: Date[] }): SendDecision {
  const { now } = command.metadata;
  const facts: SendFacts = {
    ...command.data.facts,
    businessInitiatedSentAt: counts.businessInitiatedSentAt,
    dailyUsage: { day: utcDay(now), accepted: counts.accepted },
  };
  try {
    return { ok: true, events: messageDecider.decide({ ...command, data: { ...command.data, facts } }, messageDecider.initialState()) };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, refusal: error };
    throw error;
  }
}

function isBusinessInitiated(events: MessageEvent[]): boolean {
  return events.some((event) => event.type === 'MessageSent' && carriedAcceptance(event.data)?.businessInitiated === true);
}

function dayKey(appId: string, day: string): string {
  return `${appId}\u0000${day}`;
}

function userKey(appId: string, appUserId: string): string {
  return `${appId}\u0000${appUserId}`;
}
