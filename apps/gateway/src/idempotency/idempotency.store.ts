import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '@platform/clock';
import { DomainError } from '@platform/errors';
import { IDEMPOTENCY_KEY_TTL_MS } from '@platform/contracts';
import { deleteExpiredRows, GroupCommit, jsonRows, PipelinedTransaction, type GroupOutcome } from '@platform/event-store';
import type { ServiceRuntime } from '@platform/service-kit';

export type Begin = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

interface RecordRow {
  body_hash: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
}

interface Claim {
  appId: string;
  key: string;
  bodyHash: string;
  now: Date;
}

interface Completion {
  appId: string;
  key: string;
  status: number;
  body: unknown;
}

/**
 * The gateway's Idempotency-Key records (DESIGN section 3, step 6). `begin` claims the key or
 * answers from the record; `complete` stores a 2xx answer; `release` frees the key after a refusal
 * or a failure, so the client can retry with the same key.
 *
 * Claims and completions of concurrent requests are written together (group commit): one statement
 * and one commit for all that arrived while the previous ones were being written, in key order so
 * that two such statements never wait on each other in a circle. An idle gateway writes each alone.
 */
export class IdempotencyStore {
  // A twin of a claim in the batch waits for the next one, where it finds the first one's record.
  private readonly claims = new GroupCommit<Claim, Begin>((batch) => this.claimAll(batch), { maxBatch: 200, maxConcurrent: 2, keyOf: (c) => recordKey(c.appId, c.key) });
  private readonly completions = new GroupCommit<Completion, void>((batch) => this.completeAll(batch), { maxBatch: 200, maxConcurrent: 2 });

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly clock: Clock,
    /** How long a running request holds its key before another gateway may take it over. */
    private readonly leaseMs: number,
  ) {}

  begin(appId: string, key: string, bodyHash: string): Promise<Begin> {
    return this.claims.submit({ appId, key, bodyHash, now: this.clock.now() });
  }

  complete(appId: string, key: string, status: number, body: unknown): Promise<void> {
    return this.completions.submit({ appId, key, status, body });
  }

  private async claimAll(batch: Claim[]): Promise<GroupOutcome<Begin>[]> {
    const outcomes: GroupOutcome<Begin>[] = new Array(batch.length);
    const claims = batch.map((claim, at) => ({ at, id: recordKey(claim.appId, claim.key), claim })).sort((a, b) => compareKeys(a.id, b.id));
    const em = this.runtime.em() as unknown as EntityManager;
    // Claim each key, or take it over when its record expired or its holder's lease ran out.
    const won = await PipelinedTransaction.execute(em, {
      sql: `insert into gateway.idempotency_records (app_id, idempotency_key, body_hash, state, lease_until, created_at)
       select app_id, idempotency_key, body_hash, 'in_progress', lease_until, created_at
         from jsonb_to_recordset(?::jsonb) as c(app_id text, idempotency_key text, body_hash text, lease_until timestamptz, created_at timestamptz)
       on conflict (app_id, idempotency_key) do update set body_hash = excluded.body_hash, state = 'in_progress', response_status = null,
         response_body = null, lease_until = excluded.lease_until, created_at = excluded.created_at
       where gateway.idempotency_records.created_at < excluded.created_at - ?::int * interval '1 millisecond'
          or (gateway.idempotency_records.state = 'in_progress' and gateway.idempotency_records.lease_until < excluded.created_at
              and gateway.idempotency_records.body_hash = excluded.body_hash)
       returning app_id, idempotency_key`,
      params: [
        JSON.stringify(
          claims.map(({ claim }) => ({
            app_id: claim.appId,
            idempotency_key: claim.key,
            body_hash: claim.bodyHash,
            lease_until: new Date(claim.now.getTime() + this.leaseMs),
            created_at: claim.now,
          })),
        ),
        IDEMPOTENCY_KEY_TTL_MS,
      ],
    });
    const ours = new Set(won.map((row) => recordKey(row.app_id, row.idempotency_key)));
    const taken = claims.filter(({ id, at }) => {
      if (!ours.has(id)) return true;
      outcomes[at] = { ok: true, value: { kind: 'new' } };
      return false;
    });
    if (taken.length === 0) return outcomes;
    const rows = (await PipelinedTransaction.execute(em, {
      sql: `select r.app_id, r.idempotency_key, r.body_hash, r.state, r.response_status, r.response_body
         from gateway.idempotency_records r join ${jsonRows('c', 'app_id text, idempotency_key text', taken.length)} using (app_id, idempotency_key)`,
      params: [JSON.stringify(taken.map(({ claim }) => ({ app_id: claim.appId, idempotency_key: claim.key })))],
    })) as (RecordRow & { app_id: string; idempotency_key: string })[];
    const records = new Map(rows.map((row) => [recordKey(row.app_id, row.idempotency_key), row]));
    for (const { at, id, claim } of taken) {
      const row = records.get(id);
      // Released between the two statements: claim again in the next batch.
      if (!row) outcomes[at] = { ok: 'later' };
      else if (row.body_hash !== claim.bodyHash) outcomes[at] = { ok: false, error: new DomainError('idempotency_key_reused') };
      else if (row.state === 'in_progress') outcomes[at] = { ok: false, error: new DomainError('idempotency_in_progress') };
      else {
        const body = typeof row.response_body === 'string' ? JSON.parse(row.response_body) : row.response_body;
        outcomes[at] = { ok: true, value: { kind: 'replay', status: row.response_status as number, body } };
      }
    }
    return outcomes;
  }

  private async completeAll(batch: Completion[]): Promise<GroupOutcome<void>[]> {
    const rows = batch
      .map(({ appId, key, status, body }) => ({ app_id: appId, idempotency_key: key, status, body: body ?? null }))
      .sort((a, b) => compareKeys(recordKey(a.app_id, a.idempotency_key), recordKey(b.app_id, b.idempotency_key)));
    await PipelinedTransaction.execute(this.runtime.em() as unknown as EntityManager, {
      sql: `update gateway.idempotency_records r set state = 'done', response_status = c.status, response_body = c.body
         from ${jsonRows('c', 'app_id text, idempotency_key text, status int, body jsonb', rows.length)}
        where r.app_id = c.app_id and r.idempotency_key = c.idempotency_key`,
      params: [JSON.stringify(rows)],
    });
    return batch.map(() => ({ ok: true, value: undefined }));
  }

  async release(appId: string, key: string): Promise<void> {
    await this.runtime.em().execute(`delete from gateway.idempotency_records where app_id = ? and idempotency_key = ? and state = 'in_progress'`, [appId, key]);
  }

  /** Drops records older than their 24 hours (they are ignored anyway; this keeps the table small). */
  prune(): Promise<number> {
    return deleteExpiredRows(this.runtime.em() as unknown as EntityManager, {
      table: 'gateway.idempotency_records',
      column: 'created_at',
      before: new Date(this.clock.nowMs() - IDEMPOTENCY_KEY_TTL_MS),
    });
  }
}

function recordKey(appId: string, key: string): string {
  return `${appId}\u0000${key}`;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
