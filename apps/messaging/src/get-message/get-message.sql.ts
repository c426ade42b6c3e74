import type { MessageMediaFile, MessageStatus, SentMessageType, TemplateRef } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';

/** A row of messageStatement. */
export interface MessageRow {
  message_id: string;
  direction: 'outbound' | 'inbound';
  app_user_id: string;
  type: SentMessageType;
  text: string | null;
  /** jsonb: parsed by the driver, or its text. */
  media: MessageMediaFile[] | string;
  status: MessageStatus;
  client_reference: string | null;
  created_at: DbTimestamp;
  delivered_at: DbTimestamp | null;
  read_at: DbTimestamp | null;
  /** jsonb: a template message's template, parsed by the driver or its text; null for others. */
  template: TemplateRef | string | null;
}

/** One message of an app from the messages projection (none for another app's). */
export function messageStatement(appId: string, messageId: string): Statement {
  return {
    sql: `select message_id, direction, app_user_id, type, text, media, status, client_reference, created_at, delivered_at, read_at, template from messaging.messages where message_id = ? and app_id = ?`,
    params: [messageId, appId],
  };
}
