/**
 * Checks the accepted sends of a scenario once the load has stopped: each message `sent` (GET
 * /messages/{id}), in its user's inbox exactly once (the admin API's simulator inbox) and its
 * message.status `sent` webhook delivered with one event id. Waits for the stack to drain by polling
 * until every message has arrived everywhere or the deadline comes; what is still missing then is
 * lost. Duplicated: in an inbox twice, or its `sent` event under two event ids. The same event
 * delivered again (same id) is the spec's at-least-once ("dedupe on Svc-Event-Id") and is counted
 * apart as redelivered.
 */
import { inParallel } from '../bench/bench-stack.mjs';

/** Statuses that come after `sent`: a message already past it was sent. */
const SENT_OR_LATER = new Set(['sent', 'delivered', 'read']);

/**
 * Records every message.status `sent` webhook the receiver gets, across scenarios, so a late
 * duplicate of an earlier scenario's message still counts against it.
 */
export class WebhookLog {
  constructor(receiver) {
    this.receiver = receiver;
    this.sent = new Map(); // messageId → [eventId per delivery]
    this.firstSentAt = new Map(); // messageId → when its first `sent` webhook arrived
    /** A scenario's own answers for some requests (a noisy app's endpoints); undefined leaves a request to the log. */
    this.override = null;
    receiver.respond((req) => {
      const overridden = this.override?.(req);
      if (overridden) return overridden;
      if (req.method !== 'POST') return undefined;
      try {
        const event = JSON.parse(req.rawBody.toString('utf8'));
        if (event.type === 'message.status' && event.data?.status === 'sent') {
          const ids = this.sent.get(event.data.id) ?? [];
          ids.push(event.id);
          this.sent.set(event.data.id, ids);
          if (!this.firstSentAt.has(event.data.id)) this.firstSentAt.set(event.data.id, req.receivedAt);
        }
      } catch {
        // not an event of ours
      }
      // The receiver keeps every request; only the counts above are needed.
      receiver.requests.length = 0;
      return undefined;
    });
  }
}

export async function checkDeliveries({ stack, webhooks, sends, keys, deadlineMs }) {
  const accepted = sends.filter((s) => s.outcome === 'accepted');
  const status = new Map(); // messageId → status last seen
  const deadline = Date.now() + deadlineMs;
  let inbox = new Map();
  for (;;) {
    const unsent = accepted.filter((s) => !SENT_OR_LATER.has(status.get(s.messageId)));
    await inParallel(unsent, 8, async (s) => status.set(s.messageId, await messageStatus(stack, keys.get(s.appId), s.messageId)));
    inbox = await inboxCounts(stack, accepted);
    const pending = accepted.filter((s) => !passes(s, status, inbox, webhooks));
    if (pending.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const lost = accepted.filter((s) => !passes(s, status, inbox, webhooks));
  const duplicated = accepted.filter((s) => (inbox.get(s.messageId) ?? 0) > 1 || new Set(webhooks.sent.get(s.messageId) ?? []).size > 1);
  const redelivered = accepted.filter((s) => (webhooks.sent.get(s.messageId)?.length ?? 0) > new Set(webhooks.sent.get(s.messageId) ?? []).size);
  // A send the client gave up on (or was refused) that reached its user anyway: the client believes it failed.
  const unacknowledged = sends.filter((s) => s.outcome !== 'accepted' && s.outcome !== 'pending');
  const inboxTexts = await inboxTextKeys(stack, unacknowledged);
  return {
    lost: lost.length,
    duplicated: duplicated.length,
    redelivered: redelivered.length,
    lostDetail: {
      notSent: lost.filter((s) => !SENT_OR_LATER.has(status.get(s.messageId))).length,
      notInInbox: lost.filter((s) => !inbox.get(s.messageId)).length,
      noSentWebhook: lost.filter((s) => !webhooks.sent.get(s.messageId)?.length).length,
      examples: lost.slice(0, 5).map((s) => ({
        messageId: s.messageId,
        status: status.get(s.messageId) ?? null,
        inbox: inbox.get(s.messageId) ?? 0,
        webhooks: webhooks.sent.get(s.messageId)?.length ?? 0,
      })),
    },
    duplicatedDetail: {
      inInboxTwice: duplicated.filter((s) => (inbox.get(s.messageId) ?? 0) > 1).length,
      webhookTwice: duplicated.filter((s) => (webhooks.sent.get(s.messageId)?.length ?? 0) > 1).length,
      webhookTwoEventIds: duplicated.filter((s) => new Set(webhooks.sent.get(s.messageId) ?? []).size > 1).length,
    },
    notAcceptedButDelivered: unacknowledged.filter((s) => inboxTexts.has(s.key)).length,
  };
}

/** Arrived everywhere at least once; more than once is counted apart, as duplicated, so one message is never both. */
function passes(s, status, inbox, webhooks) {
  return SENT_OR_LATER.has(status.get(s.messageId)) && (inbox.get(s.messageId) ?? 0) >= 1 && (webhooks.sent.get(s.messageId)?.length ?? 0) >= 1;
}

/** GET /messages/{id}, waiting out a 429 (the checks share the apps' rate limits with nobody else by then). */
async function messageStatus(stack, key, id) {
  for (let i = 0; i < 20; i++) {
    try {
      const res = await fetch(`${stack.publicUrl}/messages/${id}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
      if (res.ok) return /** @type {{ status: string }} */ (await res.json()).status;
      if (res.status !== 429 && res.status < 500) return `http ${res.status}`;
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return null;
}

/** messageId → how many times it is in its user's inbox, over every (user, app) pair the sends used. */
async function inboxCounts(stack, sends) {
  const counts = new Map();
  for (const row of await inboxRows(stack, sends)) counts.set(row.messageId, (counts.get(row.messageId) ?? 0) + 1);
  return counts;
}

/** Idempotency-Keys named by the texts in the inboxes of these sends' users (`chaos <key>`). */
async function inboxTextKeys(stack, sends) {
  if (sends.length === 0) return new Set();
  return new Set((await inboxRows(stack, sends)).map((row) => row.text?.replace(/^chaos /, '')));
}

async function inboxRows(stack, sends) {
  const pairs = [...new Map(sends.map((s) => [`${s.userId} ${s.appId}`, s])).values()];
  const pages = await inParallel(pairs, 4, async (s) => {
    for (let i = 0; ; i++) {
      try {
        return (await stack.admin('GET', `/sim/users/${s.userId}/inbox?appId=${s.appId}`)).data;
      } catch (error) {
        if (i >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  });
  return pages.flat();
}
