import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LISTEN_EVENT_TYPES, newId, type ListenEvent, type ListenSession, type OpenListenCall, type PollListenCall, type RpcCaller } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { PgListener, runStatement } from '#platform/postgres';
import { RpcDispatcher } from '#platform/kafka';
import { log, ServiceRuntime } from '#platform/service-kit';
import { listenSigningSecret } from './listen-secret';
import { listenServerSecret } from './listen-secret-config';
import { LISTEN_CHANNEL, LISTEN_SESSION_PREFIX, LISTEN_SESSION_TTL_MS } from './listen-session.records';
import {
  lockedSessionStatement,
  openSessionStatement,
  SEQUENCE_BATCH,
  sequenceStatement,
  sessionEventsStatement,
  touchSessionStatement,
  type SessionEventRow,
  type SessionRow,
} from './listen-sessions.sql';

/** Longest wait of one poll: the gateway's call waits a little longer. */
const MAX_WAIT_MS = 25_000;
/** A poll looks again this often while waiting, whatever the notifications (one may be lost while the listener reconnects, or media may have arrived). */
const RECHECK_MS = 1000;

/**
 * `platformctl listen` sessions (`listen.open`, `listen.poll`). A session is kept like an endpoint
 * (the public-events consumer records for it every event it wants, in the transaction that creates
 * deliveries), counts against no endpoint limit, gets no HTTP deliveries, and is read by the
 * gateway's event stream with long polls. Cursors are given out in the poll, in recording order,
 * under the session row's lock, so every event committed after a reader's cursor gets a later cursor
 * and none is skipped. Records stay a day (at-least-once: a reader resuming from an older cursor
 * gets them again); a session expires a day after its last connection.
 */
@Injectable()
export class ListenSessionsHandler implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly serverSecret: string;
  private readonly waiters = new Map<string, Set<() => void>>();
  private listener: PgListener | null = null;

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
  ) {
    this.serverSecret = listenServerSecret(runtime.config.env, runtime.config.production);
  }

  onModuleInit(): void {
    this.rpc.registerAll({
      'listen.open': (p, caller) => this.open(p, caller),
      'listen.poll': (p) => this.poll(p),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.listener = new PgListener({
      databaseUrl: this.runtime.config.serviceDatabaseUrl,
      channel: LISTEN_CHANNEL,
      applicationName: 'webhook-dispatcher-listen',
      // No payload (the listener reconnected): anything may have been recorded, wake every reader.
      onNotify: (sessionId) => (sessionId ? this.wake(sessionId) : [...this.waiters.keys()].forEach((id) => this.wake(id))),
      onError: (error) => log('error', 'listen notification listener error', { error: String(error) }),
    });
    await this.listener.start();
  }

  async onModuleDestroy(): Promise<void> {
    for (const id of [...this.waiters.keys()]) this.wake(id);
    await this.listener?.stop();
  }

  /** Opens (or reopens) the key's session for these types; returns its secret and the cursor to read after. */
  async open(p: OpenListenCall, caller: RpcCaller): Promise<ListenSession> {
    // The gateway refuses live keys; this is the owner's own check.
    if (caller.keyEnvironment !== 'sandbox') throw new DomainError('key_environment_mismatch', 'platformctl listen takes sandbox keys only.');
    const events = [...new Set(p.events)].sort();
    if (events.length === 0 || events.some((type) => !(LISTEN_EVENT_TYPES as readonly string[]).includes(type))) {
      throw DomainError.invalid([{ field: 'events', issue: `must list some of ${LISTEN_EVENT_TYPES.join(', ')}` }]);
    }
    const now = this.runtime.clock.now();
    const expiresAt = new Date(now.getTime() + LISTEN_SESSION_TTL_MS);
    return this.runtime.em().transactional(async (tx) => {
      // An expired session of the key and types is replaced: a new id, so old cursors start afresh.
      const sessionId = newId(LISTEN_SESSION_PREFIX, now.getTime());
      const [session] = await runStatement<{ session_id: string; last_seq: string }>(
        tx,
        openSessionStatement({ sessionId, appId: p.appId, keyId: p.keyId, events, now, expiresAt }),
      );
      const openedId = session.session_id;
      // A fresh start reads from now on: what is recorded and not yet read gets its cursors first.
      const head = await this.sequence(tx, openedId, Number(session.last_seq), now);
      const after = p.resume && p.resume.sessionId === openedId ? Math.min(p.resume.seq, head) : p.resume ? 0 : head;
      return { sessionId: openedId, secret: listenSigningSecret(this.serverSecret, p.keyId), events, after };
    });
  }

  /** Events after the cursor, waiting up to waitMs for the first; the session's life restarts with each poll. */
  async poll(p: PollListenCall): Promise<{ events: ListenEvent[] }> {
    const limit = Math.min(Math.max(1, Math.floor(Number(p.limit) || 100)), SEQUENCE_BATCH);
    const deadline = Date.now() + Math.min(Math.max(0, Number(p.waitMs) || 0), MAX_WAIT_MS);
    for (;;) {
      // Registered before looking, so a commit between the look and the wait still wakes it.
      const wait = this.waitFor(p.sessionId, Math.min(RECHECK_MS, Math.max(0, deadline - Date.now())));
      let events: ListenEvent[];
      try {
        events = await this.read(p.appId, p.sessionId, Number(p.after) || 0, limit);
      } catch (error) {
        wait.cancel();
        throw error;
      }
      if (events.length > 0 || Date.now() >= deadline) {
        wait.cancel();
        return { events };
      }
      await wait.promise;
    }
  }

  private async read(appId: string, sessionId: string, after: number, limit: number): Promise<ListenEvent[]> {
    const now = this.runtime.clock.now();
    return this.runtime.em().transactional(async (tx) => {
      const [session] = await runStatement<SessionRow>(tx, lockedSessionStatement(appId, sessionId));
      if (!session || new Date(session.expires_at).getTime() <= now.getTime())
        throw new DomainError('not_found', 'The listen session expired; start listening again.');
      await this.sequence(tx, sessionId, Number(session.last_seq), now, new Date(session.connected_at));
      const rows = await runStatement<SessionEventRow>(tx, sessionEventsStatement(sessionId, after, limit));
      return rows.map((row) => ({ seq: Number(row.seq), eventId: row.event_id, type: row.type, payload: row.payload }));
    });
  }

  /**
   * Gives the session's recorded, unread events their cursors, in recording order, and returns the
   * last cursor. The caller holds the session row's lock. A message.received waits for its files
   * like a delivery does, so the local app's GET /media finds them.
   */
  private async sequence(tx: EntityManager, sessionId: string, lastSeq: number, now: Date, connectedAt: Date | null = null): Promise<number> {
    const numbered = await runStatement<{ seq: string }>(tx, sequenceStatement(sessionId, lastSeq, now));
    const head = lastSeq + numbered.length;
    // The session lives a day after its last connection; a reader connected for long keeps it alive
    // (refreshed at most once a minute when nothing else changes the row).
    if (numbered.length > 0 || !connectedAt || now.getTime() - connectedAt.getTime() > 60_000) {
      await runStatement(tx, touchSessionStatement(sessionId, head, now));
    }
    return head;
  }

  private waitFor(sessionId: string, ms: number): { promise: Promise<void>; cancel: () => void } {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => finish(), ms);
    const finish = () => {
      clearTimeout(timer);
      const set = this.waiters.get(sessionId);
      set?.delete(finish);
      if (set?.size === 0) this.waiters.delete(sessionId);
      done();
    };
    if (!this.waiters.has(sessionId)) this.waiters.set(sessionId, new Set());
    this.waiters.get(sessionId)?.add(finish);
    return { promise, cancel: finish };
  }

  private wake(sessionId: string): void {
    for (const finish of [...(this.waiters.get(sessionId) ?? [])]) finish();
  }
}
