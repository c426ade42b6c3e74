import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  APP_USER_ID_PATTERN,
  appUserIdFor,
  type ConsentPage,
  type ConsentResource,
  type EventRef,
  type ListConsentsCall,
  type ReplyWindow,
  type SettledUserActions,
  type SettleUserActionsCall,
  type UserConsent,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { isoTime, isoTimeOrNull, ServiceRuntime, waitForApplied, type DbTimestamp } from '#platform/service-kit';
import { CONSENT_CONFIG, type ConsentConfig } from '../consent.config';
import { USER_ACTIONS_CONSUMER } from '../user-actions/user-actions.consumer';
import { decodeConsentCursor, encodeConsentCursor } from './consent-cursor';
import {
  causedEventsStatement,
  consentStatement,
  listConsentsStatement,
  refusalStatement,
  userStatement,
  type CausedEventRow,
  type ConsentRow,
  type ConsentVersionRow,
  type RefusalRow,
  type UserRow,
} from './consent-queries.sql';

/** D6: a reply window stays open this long after the user's last message. */
export const REPLY_WINDOW_MS = 24 * 3600 * 1000;

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
    const [row] = await runStatement<UserRow>(this.runtime.em(), userStatement(appId, appUserId));
    if (!row) throw new DomainError('not_found', 'No such user for this app.');
    return { appUserId: row.app_user_id, consent: consentResource(row), window: this.window(row.last_user_message_at) };
  }

  async listConsents(p: ListConsentsCall): Promise<ConsentPage> {
    const status = p.status ?? null;
    const cursor = p.cursor ? decodeConsentCursor(p.cursor, status, this.runtime.clock.nowMs()) : null;
    const rows = await runStatement<ConsentVersionRow>(this.runtime.em(), listConsentsStatement(p.appId, status, cursor, p.limit));
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
      const [refusal] = await runStatement<RefusalRow>(this.runtime.em(), refusalStatement(ids));
      if (refusal) throw new DomainError(refusal.code, refusal.message, refusal.details ?? undefined);
      caused = (await runStatement<CausedEventRow>(this.runtime.em(), causedEventsStatement(ids))).map((row) => ({ eventId: row.event_id, type: row.type }));
    }
    if (typeof p.appId !== 'string' || typeof p.userId !== 'string') return { appUserId: null, consent: null, events: caused };
    const appUserId = appUserIdFor(this.config.appUserIdSecret, p.appId, p.userId);
    const [row] = await runStatement<ConsentRow>(this.runtime.em(), consentStatement(p.appId, appUserId));
    return { appUserId, consent: row ? consentResource(row) : null, events: caused };
  }

  private window(lastUserMessageAt: DbTimestamp | null): ReplyWindow {
    if (lastUserMessageAt === null) return { open: false, expiresAt: null };
    const expiresAt = new Date(lastUserMessageAt).getTime() + REPLY_WINDOW_MS;
    return this.runtime.clock.nowMs() < expiresAt ? { open: true, expiresAt: new Date(expiresAt).toISOString() } : { open: false, expiresAt: null };
  }
}
