import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ChatMessageType, MessageMediaFile, MessageResource, MessageStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { isoTime, isoTimeOrNull, ServiceRuntime, type DbTimestamp } from '#platform/service-kit';

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
    const [row]: {
      message_id: string;
      direction: 'outbound' | 'inbound';
      app_user_id: string;
      type: ChatMessageType;
      text: string | null;
      media: MessageMediaFile[];
      status: MessageStatus;
      client_reference: string | null;
      created_at: DbTimestamp;
      delivered_at: DbTimestamp | null;
      read_at: DbTimestamp | null;
    }[] = await this.runtime
      .em()
      .execute(
        `select message_id, direction, app_user_id, type, text, media, status, client_reference, created_at, delivered_at, read_at from messaging.messages where message_id = ? and app_id = ?`,
        [String(messageId), appId],
      );
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
    };
  }
}
