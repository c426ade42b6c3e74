import { IDEMPOTENCY_KEY_TTL_MS } from '#platform/contracts';

/** A 2xx answer as a replay of it is given: status and body. */
export interface FinishedAnswer {
  status: number;
  body: unknown;
}

type Entry = FinishedAnswer & { bodyHash: string; expiresAtMs: number };

/** Keys kept at most: about 7 MB, at most about 11 MB (see FinishedKeys). */
export const FINISHED_KEYS_MAX = 10_000;

/**
 * The Idempotency-Keys this replica answered 2xx, by app and key: the body hash and the answer. The
 * owning service's record still decides every request that reaches it; this copy only lets the
 * gateway answer a replay while the app is rate limited without calling anyone (the gateway
 * pipeline, step 4; ADR 0205). Bounded twice: least recently used out beyond `maxEntries`, and an
 * entry is gone once its key's record is (24 h from when it began). An entry holds the app id, the
 * key (up to 255 characters), a SHA-256 hex and a send's acceptance: about 0.7 KB in V8's heap, 1.1 KB
 * with the longest key and clientReference, so the default bound costs about 7 MB and at most 11 MB.
 */
export class FinishedKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly maxEntries = FINISHED_KEYS_MAX) {}

  get size(): number {
    return this.entries.size;
  }

  /** Keeps the answer given to (app, key, body); `recordedAtMs` is when the key's record began. */
  remember(appId: string, key: string, bodyHash: string, answer: FinishedAnswer, recordedAtMs: number): void {
    if (!Number.isFinite(recordedAtMs)) return;
    const id = entryId(appId, key);
    this.entries.delete(id);
    this.entries.set(id, { status: answer.status, body: answer.body, bodyHash, expiresAtMs: recordedAtMs + IDEMPOTENCY_KEY_TTL_MS });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  /** Whether (app, key) has a finished answer now, whatever its body: a request without one need not be read. */
  holds(appId: string, key: string, nowMs: number): boolean {
    return this.live(entryId(appId, key), nowMs) !== null;
  }

  /** The answer for (app, key) when this body is the one it was given for; null for another body or none. */
  answer(appId: string, key: string, bodyHash: string, nowMs: number): FinishedAnswer | null {
    const id = entryId(appId, key);
    const entry = this.live(id, nowMs);
    if (!entry || entry.bodyHash !== bodyHash) return null;
    // Used again: last out.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return { status: entry.status, body: entry.body };
  }

  private live(id: string, nowMs: number): Entry | null {
    const entry = this.entries.get(id);
    if (!entry) return null;
    if (nowMs < entry.expiresAtMs) return entry;
    this.entries.delete(id);
    return null;
  }
}

/** Keys are printable ASCII, so a line break cannot occur in one. */
function entryId(appId: string, key: string): string {
  return `${appId}\n${key}`;
}
