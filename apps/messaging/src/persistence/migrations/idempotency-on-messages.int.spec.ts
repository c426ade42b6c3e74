import { Client } from 'pg';
import { idempotencyOnMessagesSql } from './migration-20261205-0011-idempotency-on-messages';

/**
 * Messaging migration 0011 on a scratch schema shaped as before it (messages and their claims in
 * send_requests): every claim lands on its message, a message without one keeps none, a claim whose
 * message is another app's is not taken, and send_requests is gone.
 */
let client: Client;
const schema = `migration_0011_${Date.now()}`;
beforeAll(async () => {
  client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.query(`create table ${schema}.messages (message_id text primary key, app_id text not null, created_at timestamptz not null)`);
  await client.query(`create table ${schema}.send_requests (
    app_id text not null, idempotency_key text not null, body_hash text not null, message_id text not null, created_at timestamptz not null,
    primary key (app_id, idempotency_key))`);
});
afterAll(async () => {
  await client?.query(`drop schema if exists ${schema} cascade`);
  await client?.end();
});

describe('messaging migration 0011: Idempotency-Keys onto their messages (integration)', () => {
  it('copies each claim onto its message and drops the claims', async () => {
    const at = new Date('2026-12-05T10:00:00Z');
    await client.query(`insert into ${schema}.messages values ('msg_a', 'app_1', $1), ('msg_b', 'app_1', $1), ('msg_c', 'app_2', $1)`, [at]);
    await client.query(`insert into ${schema}.send_requests values ('app_1', 'key-a', 'hash-a', 'msg_a', $1), ('app_1', 'key-c', 'hash-c', 'msg_c', $1)`, [at]);
    for (const sql of idempotencyOnMessagesSql(schema)) await client.query(sql);

    const { rows } = await client.query(`select message_id, idempotency_key, body_hash from ${schema}.messages order by message_id`);
    expect(rows).toEqual([
      { message_id: 'msg_a', idempotency_key: 'key-a', body_hash: 'hash-a' },
      { message_id: 'msg_b', idempotency_key: null, body_hash: null },
      { message_id: 'msg_c', idempotency_key: null, body_hash: null },
    ]);
    const tables = await client.query(`select table_name from information_schema.tables where table_schema = $1 order by table_name`, [schema]);
    expect(tables.rows.map((row) => row.table_name)).toEqual(['messages']);
    const indexes = await client.query(`select indexname from pg_indexes where schemaname = $1 and indexname = 'messages_idempotency_key_idx'`, [schema]);
    expect(indexes.rows).toHaveLength(1);
  });
});
