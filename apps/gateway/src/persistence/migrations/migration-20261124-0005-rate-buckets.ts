import { Migration } from '@mikro-orm/migrations';

/**
 * Token buckets shared by every gateway replica (architecture section 3, step 4): per app and per client
 * address of failed authentication. Replicas lease tokens in blocks through `lease_rate_tokens`, one
 * round trip that refills the bucket by the database's clock, so replica clocks never matter.
 * Unlogged: a bucket lost in a crash restarts full, which is what an idle bucket would be anyway.
 */
export class Migration20261124000500GatewayRateBuckets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create unlogged table gateway.rate_buckets (
      bucket text primary key,
      tokens double precision not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create index rate_buckets_updated_idx on gateway.rate_buckets (updated_at)`);
    this.addSql(`create function gateway.lease_rate_tokens(p_bucket text, p_rate double precision, p_burst double precision, p_block double precision)
    returns table (granted double precision, tokens double precision) language plpgsql as $$
    declare
      v_tokens double precision;
      v_updated timestamptz;
      v_now timestamptz;
      v_grant double precision;
    begin
      insert into gateway.rate_buckets as b (bucket, tokens, updated_at) values (p_bucket, p_burst, clock_timestamp()) on conflict (bucket) do nothing;
      select b.tokens, b.updated_at into v_tokens, v_updated from gateway.rate_buckets b where b.bucket = p_bucket for update;
      -- Read after the row lock: the time waited for another replica's lease is not refilled twice.
      v_now := greatest(clock_timestamp(), v_updated);
      v_tokens := least(p_burst, v_tokens + extract(epoch from v_now - v_updated) * p_rate);
      v_grant := greatest(0, least(p_block, floor(v_tokens)));
      update gateway.rate_buckets b set tokens = v_tokens - v_grant, updated_at = v_now where b.bucket = p_bucket;
      return query select v_grant, v_tokens - v_grant;
    end $$`);
  }
}
