import pg from 'pg';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('drop database if exists rebuild_scratch with (force)');
await admin.query('create database rebuild_scratch');
await admin.end();
const db = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/rebuild_scratch' });
await db.connect();
await db.query(`create role svc_scratch_rb nologin`).catch(() => {});
await db.query(`create schema messaging authorization svc_scratch_rb`);
await db.query(`create table messaging.events (position bigserial primary key, stream_id text not null, stream_version integer not null, event_id uuid not null unique, type text not null, data jsonb not null, metadata jsonb not null, occurred_at timestamptz not null, recorded_at timestamptz not null default now(), unique (stream_id, stream_version))`);
await db.query(`create table messaging.messages (message_id text primary key, app_id text not null, direction text not null, app_user_id text not null, user_id text not null, type text not null, text text, media jsonb not null, status text not null, client_reference text, business_initiated boolean not null default false, failure_reason text, created_at timestamptz not null, delivered_at timestamptz, read_at timestamptz, failed_at timestamptz, version integer not null)`);
await db.query(`create index messages_business_initiated_idx on messaging.messages (app_id, app_user_id, created_at) where business_initiated`);
await db.query(`create index messages_awaiting_delivery_idx on messaging.messages (created_at) where status = 'sent'`);
await db.query(`create table messaging.daily_counts (app_id text not null, day date not null, accepted integer not null, primary key (app_id, day))`);
await db.query(`alter table messaging.messages owner to svc_scratch_rb; alter table messaging.daily_counts owner to svc_scratch_rb`);
await db.query(
    `insert into messaging.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at)
     select 'message-msg_BENCH' || i, s.v, gen_random_uuid(), s.t,
       case when s.v = 1 then jsonb_build_object('messageId', 'msg_BENCH' || i, 'appUserId', 'u_' || (i % 997), 'clientReference', null, 'userId', 'usr_' || (i % 997),
                                                 'type', 'text', 'text', 'bench ' || i, 'media', '[]'::jsonb, 'businessInitiated', i % 3 = 0)
            else jsonb_build_object('messageId', 'msg_BENCH' || i, 'appUserId', 'u_' || (i % 997), 'clientReference', null) end,
       jsonb_build_object('schemaVersion', 1, 'appId', 'app_x', 'correlationId', null, 'causationId', null),
       now() - interval '1 day' + make_interval(secs => i * 0.5 + s.v)
     from generate_series(1, 25000) as i cross join (values (1, 'MessageAccepted'), (2, 'MessageSent'), (3, 'MessageDelivered'), (4, 'MessageRead')) as s(v, t)
     order by s.v, i`);
await db.end();
