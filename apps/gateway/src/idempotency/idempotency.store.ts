import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '@platform/clock';
import { DomainError } from '@platform/errors';
import type { ServiceRuntime } from '@platform/service-kit';

/** Records live 24 hours from creation (spec, Limits). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export type Begin = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

interface RecordRow {
  body_hash: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
}

/**
 * The gateway's Idempotency-Key records (DESIGN section 3, step 6). `begin` claims the key or
 * answers from the record; `complete` stores a 2xx answer; `release` frees the key after a refusal
 * or a failure, so the client can retry with the same key.
 */
export class IdempotencyStore {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly clock: Clock,
    /** How long a running request holds its key before another gateway may take it over. */
    private readonly leaseMs: number,
  ) {}

  async begin(appId: string, key: string, bodyHash: string): Promise<Begin> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    const em = this.runtime.em() as unknown as EntityManager;
    // Claim the key, or take it over when its record expired or its holder's lease ran out.
    const claimed: unknown[] = await em.execute(
      `insert into gateway.idempotency_records (app_id, idempotency_key, body_hash, state, lease_until, created_at) values (?, ?, ?, 'in_progress', ?, ?)
       on conflict (app_id, idempotency_key) do update set body_hash = excluded.body_hash, state = 'in_progress', response_status = null,
         response_body = null, lease_until = excluded.lease_until, created_at = excluded.created_at
       where gateway.idempotency_records.created_at < ?
          or (gateway.idempotency_records.state = 'in_progress' and gateway.idempotency_records.lease_until < ? and gateway.idempotency_records.body_hash = excluded.body_hash)
       returning 1`,
      [appId, key, bodyHash, leaseUntil, now, new Date(now.getTime() - IDEMPOTENCY_TTL_MS), now],
    );
    if (claimed.length === 1) return { kind: 'new' };
    const [row]: RecordRow[] = await em.execute(
      `select body_hash, state, response_status, response_body from gateway.idempotency_records where app_id = ? and idempotency_key = ?`,
      [appId, key],
    );
    // Released between the two statements: try again.
    if (!row) return this.begin(appId, key, bodyHash);
    if (row.body_hash !== bodyHash) throw new DomainError('idempotency_key_reused');
    if (row.state === 'in_progress') throw new DomainError('idempotency_in_progress');
    const body = typeof row.response_body === 'string' ? JSON.parse(row.response_body) : row.response_body;
    return { kind: 'replay', status: row.response_status as number, body };
  }

  async complete(appId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.runtime
      .em()
      .execute(`update gateway.idempotency_records set state = 'done', response_status = ?, response_body = ?::jsonb where app_id = ? and idempotency_key = ?`, [
        status,
        JSON.stringify(body ?? null),
        appId,
        key,
      ]);
  }

  async release(appId: string, key: string): Promise<void> {
    await this.runtime.em().execute(`delete from gateway.idempotency_records where app_id = ? and idempotency_key = ? and state = 'in_progress'`, [appId, key]);
  }

  /** Drops records older than their 24 hours (they are ignored anyway; this keeps the table small). */
  async prune(): Promise<number> {
    const rows: unknown[] = await this.runtime
      .em()
      .execute(`delete from gateway.idempotency_records where created_at < ? returning 1`, [new Date(this.clock.nowMs() - IDEMPOTENCY_TTL_MS)]);
    return rows.length;
  }
}
