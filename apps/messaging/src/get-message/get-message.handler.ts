import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { MessageMediaFile, MessageResource, TemplateRef } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { isoTime, isoTimeOrNull, ServiceRuntime } from '#platform/service-kit';
import { messageStatement, type MessageRow } from './get-message.sql';

/** GET /messages/{id} from the messages projection; another app's message looks absent. */
@Injectable()
export class GetMessageHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
  ) {}

  onModuleInit(): void {
    this.rpc.register('messages.get', (p) => this.get(p.appId, p.messageId));
  }

  async get(appId: string, messageId: string): Promise<MessageResource> {
    const [row] = await runStatement<MessageRow>(this.runtime.em(), messageStatement(appId, String(messageId)));
    if (!row) throw new DomainError('not_found', 'No such message for this app.');
    return {
      id: row.message_id,
      direction: row.direction,
      appUserId: row.app_user_id,
      type: row.type,
      text: row.text,
      media: (typeof row.media === 'string' ? JSON.parse(row.media) : row.media).map((m: MessageMediaFile) => ({
        id: m.id,
        mimeType: m.mimeType,
        fileName: m.fileName,
        size: m.size,
      })),
      status: row.status,
      clientReference: row.client_reference,
      createdAt: isoTime(row.created_at),
      deliveredAt: isoTimeOrNull(row.delivered_at),
      readAt: isoTimeOrNull(row.read_at),
      template: typeof row.template === 'string' ? (JSON.parse(row.template) as TemplateRef) : row.template,
    };
  }
}
