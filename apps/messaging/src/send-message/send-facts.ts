import type { AppStatus, ConsentStatus, MediaKind, UserStatus } from '#platform/contracts';
import type { Row } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';
import type { SendFactsBeforeCounts } from '../messages/send-rules';
import { templateStateOf, type TemplateRow } from '../templates/template.projection';
import type { SendBatchFacts, SendCommand } from './send-batch.decider';
import type { Addressed, ClaimedSend, MediaFile, PendingSend } from './send-message.types';

/** The facts a batch is decided on (D9), from the rows of the batch's statements, and its sends as the decider's commands. */

/** A row of factsStatement. */
export interface FactsRow {
  i: number;
  app_org_id: string;
  app_status: AppStatus;
  daily_quota: number;
  user_id: string | null;
  user_org_id: string | null;
  user_status: UserStatus | null;
  org_allows: boolean | null;
  tester: boolean;
  consent: ConsentStatus | null;
  last_user_message_at: DbTimestamp | null;
  /** A template send's template (jsonb of its messaging.templates row), null when there is none or the send is not a template send. */
  template: Omit<TemplateRow, 'created_at' | 'updated_at'> | string | null;
}

/** The claimed sends with their facts; a send whose app messaging does not know yet has no row and is left out. */
export function withFacts(claimed: (PendingSend & { at: number })[], addressed: Addressed[], rows: FactsRow[], media: Map<number, MediaFile>): ClaimedSend[] {
  const byAt = new Map(rows.map((row) => [row.i, row]));
  return claimed.flatMap((send) => {
    const row = byAt.get(send.at);
    if (!row) return [];
    const { appUserId } = addressed[send.at];
    const body = send.request.body;
    const file = body.type === 'text' || body.type === 'template' ? null : (media.get(send.at) ?? { facts: { found: false }, files: [] });
    const templateRow = typeof row.template === 'string' ? (JSON.parse(row.template) as Exclude<FactsRow['template'], string>) : row.template;
    const facts: SendFactsBeforeCounts = {
      keyEnvironment: send.request.keyEnvironment,
      app: { appId: send.request.appId, orgId: row.app_org_id, status: row.app_status, dailyQuota: row.daily_quota },
      addressedBy: typeof send.request.body.to.email === 'string' ? 'email' : 'appUserId',
      recipient:
        row.user_id === null
          ? null
          : { userId: row.user_id, appUserId, orgId: row.user_org_id!, status: row.user_status!, orgAllowsExternalBusinesses: row.org_allows ?? false },
      isAcceptedTester: row.tester,
      consent: row.consent,
      media: file ? file.facts : null,
      template: body.type === 'template' ? { state: templateStateOf(templateRow), variables: body.template?.variables ?? {} } : null,
      lastUserMessageAt: row.last_user_message_at === null ? null : new Date(row.last_user_message_at),
    };
    return [{ ...send, appUserId, facts, file }];
  });
}

/** The media rows by position in the batch. */
export function mediaFiles(rows: Row[]): Map<number, MediaFile> {
  const files = new Map<number, MediaFile>();
  for (const row of rows as {
    at: number;
    media_id: string;
    kind: MediaKind;
    status: 'pending_upload' | 'ready' | 'invalid';
    mime_type: string;
    file_name: string;
    size: string;
    object_key: string;
  }[]) {
    const size = Number(row.size);
    files.set(row.at, {
      facts: { found: true, kind: row.kind, status: row.status, mimeType: row.mime_type, fileName: row.file_name, size },
      files: [{ id: row.media_id, mimeType: row.mime_type, fileName: row.file_name, size, objectKey: row.object_key }],
    });
  }
  return files;
}

/** D8's counters as read by countersStatement. */
export function dayCounts(rows: Row[]): SendBatchFacts['acceptedOnDay'] {
  return rows.map((row) => ({ appId: row.app_id, day: row.day, accepted: Number(row.accepted) }));
}

/** D7's history as read by businessInitiatedStatements (epoch milliseconds). */
export function businessInitiatedCounts(rows: Row[]): SendBatchFacts['businessInitiated'] {
  return rows.map((row) => ({ appId: row.app_id, appUserId: row.app_user_id, sentAt: (row.sent_at as number[]).map((ms) => new Date(ms)) }));
}

/** A claimed send as the batch decider's command; `metadata.now` is when it arrived. */
export function sendCommand(send: ClaimedSend): SendCommand {
  const body = send.request.body;
  return {
    type: 'SendMessage',
    data: {
      messageId: send.messageId,
      type: body.type,
      text: body.text ?? null,
      media: send.file?.files ?? [],
      clientReference: body.clientReference ?? null,
      idempotency: { key: send.request.idempotencyKey, bodyHash: send.request.bodyHash },
      facts: send.facts,
    },
    metadata: { now: send.now },
  };
}
