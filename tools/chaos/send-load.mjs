/**
 * The campaign's load: POST /messages at an even rate (open loop: a send starts at its time whatever
 * the earlier ones are doing), each send with its own Idempotency-Key, retried with that same key as
 * the SDK's policy says (network errors, timeouts, 5xx, 429 `rate_limited`, 409
 * `idempotency_in_progress`) with exponential backoff and jitter, honouring Retry-After, for at most
 * 60 s from its first attempt. Every send is recorded with how it ended.
 */
import { randomUUID } from 'node:crypto';

const GIVE_UP_AFTER_MS = 60_000;
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const ATTEMPT_TIMEOUT_MS = 10_000;

/** A 429 that is not a momentary limit (a quota) lasts hours: retrying it would only wait out the 60 s. */
const RETRYABLE_429 = new Set(['rate_limited']);

export class SendLoad {
  /**
   * `recipients`: [{ key, appId, userId, appUserId }], used in turn.
   * @param {{ publicUrl: string, recipients: { key: string, appId: string, userId: string, appUserId: string }[], rate: number }} options
   */
  constructor({ publicUrl, recipients, rate }) {
    this.publicUrl = publicUrl;
    this.recipients = recipients;
    this.rate = rate;
    this.sends = [];
    this.inFlight = new Set();
    this.timer = null;
    this.counter = 0;
  }

  /** Starts sending at `rate` per second until stop(). */
  start() {
    const startedAt = performance.now();
    let due = 0;
    const tick = () => {
      // Catch up on every send due by now, so a stalled event loop does not lower the offered rate.
      const elapsed = performance.now() - startedAt;
      while (due * (1000 / this.rate) <= elapsed) {
        due++;
        const task = this.send().finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
      }
      this.timer = setTimeout(tick, 5);
    };
    tick();
  }

  /** Stops starting sends and waits until every started one has ended (accepted, refused or given up). */
  async stop() {
    clearTimeout(this.timer);
    this.timer = null;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async send() {
    const n = this.counter++;
    const recipient = this.recipients[n % this.recipients.length];
    const key = randomUUID();
    const record = {
      key,
      n,
      appId: recipient.appId,
      userId: recipient.userId,
      firstAt: Date.now(),
      attempts: 0,
      outcome: 'pending',
      messageId: null,
      endedAt: null,
      last: null,
    };
    this.sends.push(record);
    const body = JSON.stringify({ to: { appUserId: recipient.appUserId }, type: 'text', text: `chaos ${key}`, clientReference: `chaos-${n}` });
    for (let retry = 0; ; retry++) {
      record.attempts++;
      const attemptAt = Date.now();
      let waitMs;
      try {
        const res = await fetch(`${this.publicUrl}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${recipient.key}`, 'idempotency-key': key, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        /** @type {any} the public API's answer: an acceptance or the error envelope */
        const json = await res.json().catch(() => null);
        record.last = `${res.status} ${json?.error?.code ?? ''}`.trim();
        if (res.status === 202) {
          Object.assign(record, { outcome: 'accepted', messageId: json.id, endedAt: Date.now(), acceptedAttemptAt: attemptAt });
          return;
        }
        const code = json?.error?.code;
        const retryable = res.status >= 500 || (res.status === 429 && RETRYABLE_429.has(code)) || (res.status === 409 && code === 'idempotency_in_progress');
        if (!retryable) {
          Object.assign(record, { outcome: 'refused', endedAt: Date.now() });
          return;
        }
        const retryAfter = Number(res.headers.get('retry-after'));
        waitMs = Math.max(backoffMs(retry), Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 0);
      } catch (error) {
        record.last = error.cause?.code ?? error.name ?? String(error);
        waitMs = backoffMs(retry);
      }
      if (Date.now() + waitMs - record.firstAt > GIVE_UP_AFTER_MS) {
        Object.assign(record, { outcome: 'gave up', endedAt: Date.now() });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Stripe's curve, as the SDK's: the step doubles from 0.5 s to 8 s, jittered in [half, full]. */
function backoffMs(retry) {
  const step = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_DELAY_MS);
  return Math.max(INITIAL_DELAY_MS, step / 2 + Math.random() * (step / 2));
}
