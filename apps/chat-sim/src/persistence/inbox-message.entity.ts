import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ChatMessageType, OutboundMediaFile } from '#platform/contracts';

/** A message in a user's inbox: handed over by the platform and accepted by the chat product. */
@Entity({ schema: 'chat_sim', tableName: 'inbox_messages' })
export class InboxMessageView {
  @PrimaryKey({ type: 'text' })
  messageId!: string;

  @Property({ type: 'text' })
  userId!: string;

  @Property({ type: 'text' })
  appId!: string;

  @Property({ type: 'text' })
  type!: ChatMessageType;

  @Property({ type: 'text', nullable: true })
  text: string | null = null;

  @Property({ type: 'jsonb' })
  media!: OutboundMediaFile[];

  @Property({ type: 'timestamptz' })
  receivedAt!: Date;
}
