import { Client } from 'pg';
import type { SendMessageCall } from '#platform/contracts';
import { queryStatement } from '#platform/postgres';
import { eventually } from '#platform/testing';
import { heldStatement, keyLocksStatement } from './send-batch.sql';
import type { PendingSend } from './send-message.types';

/**
 * Two send batches of one Idempotency-Key in two processes, against messaging's real tables: the
 * second waits on the key's lock until the first commits, and its held-key read, a later statement,
 * then sees the first's message (ADR 0227). Without the lock the read sees nothing while the first
 * is under way, and both would be accepted.
 */
const clients: Client[] = [];
const connect = async (): Promise<Client> => {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  clients.push(client);
  return client;
};
afterAll(async () => {
  await Promise.all(clients.map((client) => client.end()));
});

function pending(appId: string, idempotencyKey: string, messageId: string, now: Date): PendingSend {
  const request = { appId, idempotencyKey, bodyHash: 'hash-1' } as SendMessageCall;
  return { request, caller: { requestId: `req-${messageId}` } as PendingSend['caller'], now, messageId, trace: {} };
}

describe('send batches of one Idempotency-Key in two processes (integration)', () => {
  it("the second waits for the first to commit, then holds the first's message", async () => {
    const [first, second, onlooker] = [await connect(), await connect(), await connect()];
    const now = new Date();
    const appId = `app_locks_${now.getTime()}`;
    const key = `order-${now.getTime()}`;
    const since = new Date(now.getTime() - 24 * 3600 * 1000);
    const a = pending(appId, key, `msg_locks_a_${now.getTime()}`, now);
    const b = pending(appId, key, `msg_locks_b_${now.getTime()}`, now);

    await first.query('begin');
    await queryStatement(first, keyLocksStatement([a]));
    expect(await queryStatement(first, heldStatement([a], since))).toEqual([]);
    await first.query(
      `insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, created_at, version, idempotency_key, body_hash)
       values ($1, $2, 'outbound', 'u_locks', 'usr_locks', 'text', 'hi', '[]', 'sent', $3, 1, $4, 'hash-1')`,
      [a.messageId, appId, now, key],
    );

    await second.query('begin');
    const secondPid = Number((await second.query('select pg_backend_pid() as pid')).rows[0].pid);
    const secondLocked = queryStatement(second, keyLocksStatement([b]));
    // The second batch waits on the key's lock...
    await eventually(async () => {
      const { rows } = await onlooker.query(`select wait_event from pg_stat_activity where pid = $1`, [secondPid]);
      return rows[0]?.wait_event === 'advisory';
    });
    // ...which is what keeps it from accepting the key again: a read without it sees nothing yet.
    expect(await queryStatement(onlooker, heldStatement([b], since))).toEqual([]);

    await first.query('commit');
    await secondLocked;
    const held = await queryStatement(second, heldStatement([b], since));
    expect(held).toEqual([expect.objectContaining({ app_id: appId, idempotency_key: key, message_id: a.messageId, body_hash: 'hash-1' })]);
    await second.query('rollback');

    // A key recorded before its 24 hours is free again.
    expect(await queryStatement(onlooker, heldStatement([b], new Date(now.getTime() + 1)))).toEqual([]);
    await onlooker.query('delete from messaging.messages where message_id = $1', [a.messageId]);
  });
});
