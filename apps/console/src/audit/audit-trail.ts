import { Injectable } from '@nestjs/common';
import { StreamVersionConflict } from '#platform/event-store';
import type { RpcCaller } from '#platform/contracts';
import { ServiceRuntime } from '#platform/service-kit';
import { membersStream } from '../members/members.handler';
import { consoleCaller } from '../web/console-web';

/** What a person changed through the console in a service that owns it, by the words the overview uses. */
export const CONSOLE_CHANGES = {
  'key.created': 'created the API key',
  'key.revoked': 'revoked the API key',
  'endpoint.added': 'added the webhook endpoint',
  'endpoint.deleted': 'deleted the webhook endpoint',
  'endpoint.verified': 'verified again the webhook endpoint',
  'endpoint.tested': 'sent a test event to the webhook endpoint',
  'endpoint.secretRotated': 'rotated the signing secret of the webhook endpoint',
  'endpoint.eventsChanged': 'changed the events of the webhook endpoint',
  'endpoint.recovered': 'recovered the missed events of the webhook endpoint',
  'delivery.replayed': 'replayed the webhook delivery',
  'optinLink.created': 'created the opt-in link',
  'profile.updated': 'updated the business profile',
  'template.created': 'created the message template',
  'template.changed': 'changed the message template',
  'template.deleted': 'deleted the message template',
} as const;
export type ConsoleChange = keyof typeof CONSOLE_CHANGES;

/** The console's record of a change (stream `app-audit-<appId>`); the owning service holds the change itself. */
export interface ConsoleChangeMade {
  type: 'ConsoleChangeMade';
  data: { appId: string; by: string; change: ConsoleChange; subject: string };
}

export const auditStream = (appId: string) => `app-audit-${appId}`;

/** One change to an app, as the overview lists it (who, what, when). */
export interface AuditEntry {
  type: string;
  data: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * Records who changed what through the console, once the owning service accepted the change. Its
 * request id is the correlation id of the service's own events, so the two can be joined. A change
 * refused by the service is not recorded; one accepted just before the console stops may lack its
 * line (docs/adr/0185-console-changes-through-the-owning-services.md).
 */
@Injectable()
export class AuditTrail {
  constructor(private readonly runtime: ServiceRuntime) {}

  /**
   * Makes a change through its owning service (`call`, with a caller of the console's own) and
   * records it once the service accepted it; a refusal is thrown on, unrecorded.
   */
  async change<T>(appId: string, by: string, change: ConsoleChange, call: (caller: RpcCaller) => Promise<T>, subject: (result: T) => string): Promise<T> {
    const caller = consoleCaller(appId);
    const result = await call(caller);
    await this.record(appId, by, change, subject(result), caller.requestId);
    return result;
  }

  async record(appId: string, by: string, change: ConsoleChange, subject: string, requestId: string): Promise<void> {
    const event: ConsoleChangeMade = { type: 'ConsoleChangeMade', data: { appId, by, change, subject } };
    const now = this.runtime.clock.now();
    // Two changes of one app at the same moment race for the next version: the loser appends after it.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.runtime.em().transactional((em) =>
          this.runtime.eventStore.append(em, auditStream(appId), 'any', [event], {
            now,
            appId,
            correlationId: requestId,
            causationId: requestId,
          }),
        );
        return;
      } catch (error) {
        if (!(error instanceof StreamVersionConflict) || attempt >= 5) throw error;
      }
    }
  }

  /** The app's changes, newest first: its members' and those made through the console elsewhere. */
  async recent(appId: string, limit = 20): Promise<AuditEntry[]> {
    const rows = await this.runtime
      .em()
      .execute<{ type: string; data: Record<string, unknown>; occurred_at: Date }[]>(
        `select type, data, occurred_at from console.events where stream_id in (?, ?) order by position desc limit ?`,
        [membersStream(appId), auditStream(appId), limit],
      );
    return rows.map((row) => ({ type: row.type, data: row.data, occurredAt: new Date(row.occurred_at) }));
  }
}
