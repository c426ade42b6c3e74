import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { MessageMediaFile } from '@platform/contracts';
import { DomainError } from '@platform/errors';
import { RpcDispatcher } from '@platform/kafka';
import { ServiceRuntime } from '@platform/service-kit';

type Timestamp = Date | string;
const iso = (value: Timestamp | null) => (value === null ? null : new Date(value).toISOString());

/** GET /messages/{id} from the messages projection; another app's message looks absent. */
@Injectable()
export class GetMessageHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher,
  ) {}

  onModuleInit(): void {
    this.rpc.register('messages.get', (p) => this.get(p.appId, p.messageId));
  }

  async get(appId: string, messageId: string) {
    const [row]: {
      message_id: string;
      direction: 'outbound' | 'inbound';
      app_user_id: string;
      type: string;
      text: string | null;
      media: MessageMediaFile[];
      status: string;
      client_reference: string | null;
      created_at: Timestamp;
      delivered_at: Timestamp | null;
      read_at: Timestamp | null;
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
      media: (typeof row.media === 'string' ? JSON.parse(row.media) : row.media).map((m: MessageMediaFile) => ({ id: m.id, mimeType: m.mimeType, fileName: m.fileName, size: m.size })),
      status: row.status,
      clientReference: row.client_reference,
      createdAt: iso(row.created_at),
      deliveredAt: iso(row.delivered_at),
      readAt: iso(row.read_at),
    };
  }
}
