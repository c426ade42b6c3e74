/** The SQL seed-volume.mjs writes and removes a volume with: one script per kind of record. */

/** $1: the apps' ids. */
export const REMOVE_BY_APP = [
  'delete from webhook_dispatcher.delivery_attempts a using webhook_dispatcher.deliveries d where a.delivery_id = d.delivery_id and d.app_id = any($1)',
  'delete from webhook_dispatcher.deliveries where app_id = any($1)',
  'delete from webhook_dispatcher.public_events where app_id = any($1)',
  'delete from webhook_dispatcher.endpoints where app_id = any($1)',
  'delete from chat_sim.inbox_messages where app_id = any($1)',
  `delete from messaging.events e using messaging.messages m where e.stream_id = 'message-' || m.message_id and m.app_id = any($1)`,
  'delete from messaging.messages where app_id = any($1)',
  'delete from messaging.daily_counts where app_id = any($1)',
  `delete from consent.events e using consent.app_users u where e.stream_id = 'consent-' || u.app_id || ':' || u.app_user_id and u.app_id = any($1)`,
  'delete from consent.consent_versions where app_id = any($1)',
  'delete from consent.consent_list_seq where app_id = any($1)',
  'delete from consent.consents where app_id = any($1)',
  'delete from consent.app_users where app_id = any($1)',
  'delete from messaging.consents where app_id = any($1)',
  'delete from messaging.app_users where app_id = any($1)',
];
/** $1: the ids of the apps' orgs (seeding made each app its own org). */
export const REMOVE_BY_ORG = [
  `delete from chat_sim.events e using chat_sim.users u where e.stream_id = 'user-' || u.user_id and u.org_id = any($1)`,
  'delete from messaging.recipients where org_id = any($1)',
  'delete from chat_sim.users where org_id = any($1)',
];

// seed_id(series, n): the SQL twin of seed-volume.mjs's hexId. seed_event_id: a public event's id, time-ordered
// like the dispatcher's (ADR 0223: its lists and retention read the time in the id). message_event_id: a
// message's event ids, known to the dispatcher's public events made from them (`source_event_id`, what
// `trace message` follows). The events' metadata is what a command through the API writes.
export const SEED_FUNCTIONS = `
create or replace function pg_temp.seed_id(series int, n bigint) returns text language sql immutable as
  $$ select lpad(upper(to_hex(series)), 10, '0') || lpad(upper(to_hex(n)), 16, '0') $$;
create or replace function pg_temp.seed_event_id(series int, n bigint, at timestamptz) returns text language sql immutable as
  $$ select 'evt_' || string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((floor(extract(epoch from at) * 1000)::bigint >> (5 * (9 - k))) & 31)::int + 1, 1), '' order by k)
            || lpad(upper(to_hex(series)), 6, '0') || lpad(upper(to_hex(n)), 10, '0')
       from generate_series(0, 9) as k $$;
create or replace function pg_temp.message_event_id(message_id text, version int) returns uuid language sql immutable as
  $$ select md5(message_id || ':' || version)::uuid $$;
create or replace function pg_temp.seed_meta(app_id text) returns jsonb language sql volatile as
  $$ select jsonb_build_object('appId', app_id, 'causationId', 'req_' || substr(md5(random()::text), 1, 24), 'correlationId', 'req_' || substr(md5(random()::text), 1, 24), 'schemaVersion', 1) $$;
`;

export const USERS_SQL = `
insert into chat_sim.users (user_id, org_id, email, display_name, status, created_at, updated_at, version)
  select u.user_id, a.org_id, lower(u.user_id) || '@volume.example.test', null, 'active', u.at, u.at, 1 from seed_users u join seed_apps a using (app_n);
insert into chat_sim.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'user-' || u.user_id, 1, gen_random_uuid(), 'UserCreated',
         jsonb_build_object('email', lower(u.user_id) || '@volume.example.test', 'orgId', a.org_id, 'status', 'active', 'userId', u.user_id, 'displayName', null),
         pg_temp.seed_meta(null) || '{"appId": null}', u.at, u.at
    from seed_users u join seed_apps a using (app_n);
insert into messaging.recipients (user_id, org_id, email, status)
  select u.user_id, a.org_id, lower(u.user_id) || '@volume.example.test', 'active' from seed_users u join seed_apps a using (app_n);
insert into messaging.app_users (app_id, app_user_id, user_id) select a.app_id, u.app_user_id, u.user_id from seed_users u join seed_apps a using (app_n);
insert into consent.app_users (app_id, app_user_id, user_id, identified_at) select a.app_id, u.app_user_id, u.user_id, u.at from seed_users u join seed_apps a using (app_n);
insert into consent.consents (app_id, app_user_id, user_id, status, source, ref, reason, opted_in_at, opted_out_at, updated_at, version)
  select a.app_id, u.app_user_id, u.user_id, 'opted_in', 'opt_in_link', 'volume', null, u.at, null, u.at, 2 from seed_users u join seed_apps a using (app_n);
insert into consent.consent_versions (app_id, seq, app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at, valid_to_seq, superseded_at)
  select a.app_id, u.n + 1, u.app_user_id, 'opted_in', 'opt_in_link', 'volume', u.at, null, u.at, null, null from seed_users u join seed_apps a using (app_n);
insert into consent.consent_list_seq (app_id, seq) select app_id, users from seed_apps
  on conflict (app_id) do update set seq = consent.consent_list_seq.seq + excluded.seq;
insert into messaging.consents (app_id, app_user_id, status, version) select a.app_id, u.app_user_id, 'opted_in', 2 from seed_users u join seed_apps a using (app_n);
insert into consent.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'consent-' || a.app_id || ':' || u.app_user_id, v, gen_random_uuid(),
         case v when 1 then 'AppUserIdentified' else 'ConsentUpdated' end,
         case v when 1 then jsonb_build_object('userId', u.user_id, 'appUserId', u.app_user_id)
           else jsonb_build_object('ref', 'volume', 'reason', null, 'source', 'opt_in_link', 'status', 'opted_in', 'userId', u.user_id, 'appUserId', u.app_user_id,
                                   'optedInAt', to_char(u.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'optedOutAt', null, 'previousStatus', null) end,
         pg_temp.seed_meta(a.app_id), u.at, u.at
    from seed_users u join seed_apps a using (app_n) cross join generate_series(1, 2) v;
`;

// $1..$2: message numbers of each app; $3 now; $4 days. Message i of an app goes to its user i mod users,
// at a time that grows with i; ids grow with it, as ULIDs do.
export const MESSAGES_SQL = `
create temp table if not exists seed_messages (app_n int, i int, message_id text, app_id text, user_id text, app_user_id text, at timestamptz);
truncate seed_messages;
insert into seed_messages
  select a.app_n, i, 'msg_' || pg_temp.seed_id(1000 + a.app_n, i), a.app_id, u.user_id, u.app_user_id,
         $3::timestamptz - (($4::float8 * (1 - i::float8 / a.messages)) * interval '1 day')
    from seed_apps a cross join generate_series($1::int, $2::int - 1) i join seed_users u on u.app_n = a.app_n and u.n = i % a.users;
insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated, failure_reason, created_at, delivered_at, version)
  select message_id, app_id, 'outbound', app_user_id, user_id, 'text', 'volume message ' || i, '[]', 'delivered', 'v-' || i, false, null, at, at + interval '1 second', 3
    from seed_messages;
insert into messaging.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'message-' || message_id, v, pg_temp.message_event_id(message_id, v), (array['MessageAccepted', 'MessageSent', 'MessageDelivered'])[v],
         case v when 1 then jsonb_build_object('text', 'volume message ' || i, 'type', 'text', 'media', '[]'::jsonb, 'userId', user_id, 'appUserId', app_user_id,
                                               'messageId', message_id, 'clientReference', 'v-' || i, 'businessInitiated', false)
           else jsonb_build_object('appUserId', app_user_id, 'messageId', message_id, 'clientReference', 'v-' || i) end,
         pg_temp.seed_meta(app_id), at + (v - 1) * interval '500 milliseconds', at + (v - 1) * interval '500 milliseconds'
    from seed_messages cross join generate_series(1, 3) v;
insert into chat_sim.inbox_messages (message_id, user_id, app_id, type, text, media, received_at)
  select message_id, user_id, app_id, 'text', 'volume message ' || i, '[]', at + interval '1 second' from seed_messages;
`;

export const DAILY_COUNTS_SQL = `
insert into messaging.daily_counts (app_id, day, accepted)
  select app_id, (created_at at time zone 'UTC')::date, count(*) from messaging.messages where text like 'volume message %' group by 1, 2
  on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted + excluded.accepted;
`;

export const ENDPOINTS_SQL = `
insert into webhook_dispatcher.endpoints (endpoint_id, app_id, url, events, state, created_at, updated_at, verified_at, disabled_at, last_verification_error, version)
  select endpoint_id, app_id, 'https://hooks.volume.example.test/' || app_n, '{message.status}', 'disabled',
         $1::timestamptz - interval '90 days', $1::timestamptz, $1::timestamptz - interval '90 days', $1::timestamptz, null, 2
    from seed_apps;
`;

// $1..$2: message numbers (the newest ones); $3 now; $4 days of deliveries; $5 messages per app; $6 days of messages.
// Each message's sent and delivered statuses, as the dispatcher stores and delivers them.
export const DELIVERIES_SQL = `
create temp table if not exists seed_statuses (app_n int, app_id text, endpoint_id text, event_id text, delivery_id text, source_event_id text, payload text, at timestamptz);
truncate seed_statuses;
insert into seed_statuses
  select a.app_n, a.app_id, a.endpoint_id, pg_temp.seed_event_id(2000 + a.app_n * 2 + s.k, i, t.at), 'wd_' || pg_temp.seed_id(4000 + a.app_n * 2 + s.k, i),
         pg_temp.message_event_id('msg_' || pg_temp.seed_id(1000 + a.app_n, i), 2 + s.k)::text,
         jsonb_build_object('id', pg_temp.seed_event_id(2000 + a.app_n * 2 + s.k, i, t.at), 'type', 'message.status', 'apiVersion', '2026-10-01',
                            'created', extract(epoch from t.at)::bigint, 'appId', a.app_id,
                            'data', jsonb_build_object('id', 'msg_' || pg_temp.seed_id(1000 + a.app_n, i), 'appUserId', u.app_user_id, 'status', s.status,
                                                       'timestamp', to_char(t.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'clientReference', 'v-' || i))::text,
         t.at
    from seed_apps a cross join generate_series($1::int, $2::int - 1) i
    join seed_users u on u.app_n = a.app_n and u.n = i % a.users
    cross join (values (0, 'sent'), (1, 'delivered')) as s(k, status)
    cross join lateral (select $3::timestamptz - (($6::float8 * (1 - i::float8 / $5)) * interval '1 day') + (s.k + 1) * interval '500 milliseconds' as at) t
   where t.at > $3::timestamptz - $4 * interval '1 day';
insert into webhook_dispatcher.public_events (event_id, app_id, type, payload, requires_media, source_event_id, created_at)
  select event_id, app_id, 'message.status', payload, '{}', source_event_id, at from seed_statuses;
insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at,
                                           last_attempt_at, last_response_status, delivered_at)
  select delivery_id, app_id, endpoint_id, event_id, 'message.status', 'delivered', 1, at, null, at + interval '50 milliseconds', 200, at + interval '80 milliseconds'
    from seed_statuses;
insert into webhook_dispatcher.delivery_attempts (delivery_id, attempt, started_at, finished_at, outcome, response_status, error, duration_ms)
  select delivery_id, 1, at + interval '50 milliseconds', at + interval '80 milliseconds', 'delivered', 200, null, 30 from seed_statuses;
`;
