import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  APP_USER_ID_PATTERN,
  appUserIdFor,
  type ConsentPage,
  type ConsentResource,
  type ConsentSource,
  type ConsentStatus,
  type ErrorCode,
  type ErrorDetail,
  type EventRef,
  type ListConsentsCall,
  type ReplyWindow,
  type SettledUserActions,
  type SettleUserActionsCall,
  type UserConsent,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { isoTime, isoTimeOrNull, ServiceRuntime, waitForApplied, type DbTimestamp } from '#platform/service-kit';
import { CONSENT_CONFIG, type ConsentConfig } from '../consent.config';
import { USER_ACTIONS_CONSUMER } from '../user-actions/user-actions.consumer';
import { decodeConsentCursor, encodeConsentCursor } from './consent-cursor';

/** D6: a reply window stays open this long after the user's last message. */
export const REPLY_WINDOW_MS = 24 * 3600 * 1000;

interface ConsentRow {
  app_user_id: string;
  status: ConsentStatus;
  source: ConsentSource;
  ref: string | null;
  opted_in_at: DbTimestamp;
  opted_out_at: DbTimestamp | null;
  updated_at: DbTimestamp;
}

/** The spec's Consent resource. */
export function consentResource(row: ConsentRow): ConsentResource {
  return {
    appUserId: row.app_user_id,
    status: row.status,
    source: row.source,
    ref: row.ref,
    optedInAt: isoTime(row.opted_in_at),
    optedOutAt: isoTimeOrNull(row.opted_out_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** GET /users/{appUserId}, GET /consents and the simulator's wait, served on consent.rpc from projections. */
@Injectable()
export class ConsentQueriesHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'consent'>,
    @Inject(CONSENT_CONFIG) private readonly config: ConsentConfig,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'users.get': (p) => this.getUser(p.appId, p.appUserId),
      'consents.list': (p) => this.listConsents(p),
      'userActions.settle': (p) => this.settle(p),
    });
  }

  /** One indexed query: the consent joined with the user's reply window. */
  async getUser(appId: string, appUserId: string): Promise<UserConsent> {
    if (typeof appUserId !== 'string' || !APP_USER_ID_PATTERN.test(appUserId)) throw new DomainError('not_found', 'No such user for this app.');
    const [row]: (ConsentRow & { last_user_message_at: DbTimestamp | null })[] = await this.runtime.em().execute(
      `select c.app_user_id, c.status, c.source, c.ref, c.opted_in_at, c.opted_out_at, c.updated_at, w.last_user_message_at
       from consent.consents c left join consent.reply_windows w on w.app_id = c.app_id and w.app_user_id = c.app_user_id
       where c.app_id = ? and c.app_user_id = ?`,
      [appId, appUserId],
    );
    if (!row) throw new DomainError('not_found', 'No such user for this app.');
    return { appUserId: row.app_user_id, consent: consentResource(row), window: this.window(row.last_user_message_at) };
  }

  async listConsents(p: ListConsentsCall): Promise<ConsentPage> {
    const status = p.status ?? null;
    const cursor = p.cursor ? decodeConsentCursor(p.cursor, status, this.runtime.clock.nowMs()) : null;
    const params: unknown[] = [];
    // The snapshot: the app's change sequence when the listing started (or the cursor's).
    const snapshot = cursor ? '?::bigint' : `coalesce((select seq from consent.consent_list_seq where app_id = ?), 0)`;
    params.push(cursor ? cursor.snapshot : p.appId);
    let where = `v.app_id = ? and v.seq <= s.at and (v.valid_to_seq is null or v.valid_to_seq > s.at)`;
    params.push(p.appId);
    if (status) {
      where += ` and v.status = ?`;
      params.push(status);
    }
    if (cursor) {
      // `updated_at <= ?` on its own is what the index can start from: without it the scan walked every
      // row before the cursor, so each page cost as much as all the pages before it.
      where += ` and v.updated_at <= ? and (v.updated_at < ? or v.app_user_id > ?)`;
      params.push(cursor.updatedAt, cursor.updatedAt, cursor.appUserId);
    }
    params.push(p.limit + 1);
    const rows: (ConsentRow & { at: string })[] = await this.runtime.em().execute(
      `with s as (select ${snapshot} as at)
       select v.app_user_id, v.status, v.source, v.ref, v.opted_in_at, v.opted_out_at, v.updated_at, s.at
       from consent.consent_versions v, s where ${where}
       order by v.updated_at desc, v.app_user_id asc limit ?`,
      params,
    );
    const page = rows.slice(0, p.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > p.limit && last
        ? encodeConsentCursor({
            snapshot: Number(last.at),
            updatedAt: isoTime(last.updated_at),
            appUserId: last.app_user_id,
            status,
            startedAtMs: cursor?.startedAtMs ?? this.runtime.clock.nowMs(),
          })
        : null;
    return { data: page.map(consentResource), nextCursor };
  }

  /**
   * Returns once the user-actions consumer has applied the events a simulator call published, with
   * the consent that resulted and the consent events it caused (for the caller to wait on in other
   * services), or with the refusal when the platform refused the action.
   */
  async settle(p: SettleUserActionsCall): Promise<SettledUserActions> {
    const events = Array.isArray(p.events) ? p.events : [];
    if (!(await waitForApplied(this.runtime, USER_ACTIONS_CONSUMER, events, Math.max(1000, this.runtime.config.rpcTimeoutMs - 1000)))) {
      throw new DomainError('internal_error', 'The action was recorded but the consent service has not applied it yet; read the consent again shortly.');
    }
    const ids = events.map((e) => String(e.eventId));
    let caused: EventRef[] = [];
    if (ids.length > 0) {
      const marks = ids.map(() => '?').join(', ');
      const [refusal]: { code: ErrorCode; message: string; details: ErrorDetail[] | null }[] = await this.runtime
        .em()
        .execute(`select code, message, details from consent.refused_user_actions where event_id in (${marks}) limit 1`, ids);
      if (refusal) throw new DomainError(refusal.code, refusal.message, refusal.details ?? undefined);
      caused = (
        await this.runtime
          .em()
          .execute<{ event_id: string; type: string }[]>(
            `select event_id, type from consent.events where metadata->>'causationId' in (${marks}) order by position`,
            ids,
          )
      ).map((row) => ({ eventId: row.event_id, type: row.type }));
    }
    if (typeof p.appId !== 'string' || typeof p.userId !== 'string') return { appUserId: null, consent: null, events: caused };
    const appUserId = appUserIdFor(this.config.appUserIdSecret, p.appId, p.userId);
    const [row]: ConsentRow[] = await this.runtime
      .em()
      .execute(`select app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at from consent.consents where app_id = ? and app_user_id = ?`, [
        p.appId,
        appUserId,
      ]);
    return { appUserId, consent: row ? consentResource(row) : null, events: caused };
  }

  private window(lastUserMessageAt: DbTimestamp | null): ReplyWindow {
    if (lastUserMessageAt === null) return { open: false, expiresAt: null };
    const expiresAt = new Date(lastUserMessageAt).getTime() + REPLY_WINDOW_MS;
    return this.runtime.clock.nowMs() < expiresAt ? { open: true, expiresAt: new Date(expiresAt).toISOString() } : { open: false, expiresAt: null };
  }
}
