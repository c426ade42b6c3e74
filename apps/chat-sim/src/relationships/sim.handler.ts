import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  DOWNLOAD_URL_TTL_SECONDS,
  eventRefs,
  ID_PREFIX,
  newId,
  type ChatMediaFile,
  type DomainEvent,
  type RpcCaller,
  type RpcReplyOf,
  type RpcRequestOf,
  type SimAppAction,
  type SimInboxEntry,
  type SimMediaUpload,
  type SimOutcome,
  type SimSendMessageCall,
  type UserStatus,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { CommandMetadata } from '#platform/decider';
import { RpcDispatcher } from '#platform/kafka';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { InboxMessageView } from '../persistence/inbox-message.entity';
import { UserView } from '../persistence/user-view.entity';
import type { RelationshipCommand } from './relationship.decider';
import { runRelationshipCommand } from './relationship.stream';

const APP_ACTIONS = {
  allow: 'AllowFromProfile',
  stop: 'StopApp',
  block: 'BlockApp',
  unblock: 'UnblockApp',
  'accept-tester': 'AcceptTesterInvitation',
} as const satisfies Record<SimAppAction, RelationshipCommand['type']>;

/**
 * The simulator's user actions (admin API /sim/...), served on chat-sim.rpc. Each appends to the
 * user's relationship stream with the app and publishes on chat.user-events through the outbox.
 */
@Injectable()
export class SimHandler implements OnModuleInit {
  private readonly bucket: MediaBucket;

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'chat-sim'>,
  ) {
    this.bucket = MediaBucket.fromEnv(runtime.config.env);
  }

  onModuleInit(): void {
    this.rpc.registerAll({
      'sim.sendMessage': (p, caller) => this.sendMessage(p, caller),
      'sim.receipt': (p, caller) => this.receipt(p, caller),
      'sim.inbox': (p) => this.inbox(p),
      'sim.openLink': (p, caller) =>
        this.act(p.userId, (pair, metadata) => ({ type: 'OpenOptInLink', data: { ...pair(p.appId), token: p.token }, metadata }), caller),
      'sim.allowLink': (p, caller) =>
        this.act(p.userId, (pair, metadata) => ({ type: 'AllowOptInLink', data: { ...pair(p.appId), token: p.token }, metadata }), caller),
      'sim.appAction': (p, caller) => this.appAction(p, caller),
      'sim.inviteTester': (p, caller) => this.act(p.userId, (pair, metadata) => ({ type: 'ShowTesterInvitation', data: pair(p.appId), metadata }), caller),
    });
  }

  async sendMessage(p: SimSendMessageCall, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'sim.sendMessage'>> {
    await this.accountStatus(p.userId);
    const messageId = newId(ID_PREFIX.message, this.runtime.clock.nowMs());
    const media = await this.storeMedia(messageId, p.media ?? []);
    const outcome = await this.act(
      p.userId,
      (pair, metadata) => ({
        type: 'SendMessage',
        data: { ...pair(p.appId), messageId, messageType: p.type, text: p.text ?? null, media, replyTo: p.replyTo ?? null },
        metadata,
      }),
      caller,
    );
    return { ...outcome, messageId };
  }

  /**
   * The chat product stores what users attach in the platform's bucket before telling the platform,
   * so the event carries object keys, never bytes. A refused message leaves its objects behind for
   * the media sweeper (they are never referenced).
   */
  private async storeMedia(messageId: string, uploads: SimMediaUpload[]): Promise<ChatMediaFile[]> {
    return Promise.all(
      uploads.map(async (upload, i) => {
        const bytes = Buffer.from(upload.base64, 'base64');
        const objectKey = `inbound/${messageId}/${i}`;
        await this.bucket.put(objectKey, bytes, upload.mimeType);
        return { objectKey, fileName: upload.fileName, mimeType: upload.mimeType, size: bytes.length };
      }),
    );
  }

  async receipt(p: RpcRequestOf<'chat-sim', 'sim.receipt'>, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'sim.receipt'>> {
    const message = await this.runtime.em().findOne(InboxMessageView, { messageId: String(p.messageId), userId: String(p.userId) });
    if (!message) throw new DomainError('not_found', "No such message in the user's inbox.");
    const outcome = await this.act(
      p.userId,
      (pair, metadata) => ({ type: 'SendReceipt', data: { ...pair(message.appId), messageId: message.messageId, status: p.status }, metadata }),
      caller,
    );
    return { ...outcome, appId: message.appId };
  }

  async inbox(p: { userId: string; appId: string }): Promise<{ data: SimInboxEntry[] }> {
    await this.accountStatus(p.userId);
    const rows = await this.runtime.em().find(InboxMessageView, { userId: p.userId, appId: p.appId }, { orderBy: { receivedAt: 'asc', messageId: 'asc' } });
    // The user's device downloads what it shows: each file with a URL good for an hour.
    return {
      data: await Promise.all(
        rows.map(async (row) => ({
          messageId: row.messageId,
          type: row.type,
          text: row.text,
          media: await Promise.all(
            row.media.map(async (m) => ({
              id: m.mediaId,
              fileName: m.fileName,
              mimeType: m.mimeType,
              size: m.size,
              objectKey: m.objectKey,
              url: await this.bucket.presignDownload(m.objectKey, DOWNLOAD_URL_TTL_SECONDS),
            })),
          ),
          receivedAt: row.receivedAt.toISOString(),
        })),
      ),
    };
  }

  appAction(p: { userId: string; appId: string; action: SimAppAction }, caller: RpcCaller): Promise<SimOutcome> {
    if (!Object.hasOwn(APP_ACTIONS, p.action)) throw DomainError.invalid([{ field: 'action', issue: `must be one of ${Object.keys(APP_ACTIONS).join(', ')}` }]);
    return this.act(p.userId, (pair, metadata) => ({ type: APP_ACTIONS[p.action], data: pair(p.appId), metadata }) as RelationshipCommand, caller);
  }

  private async act(
    userId: string,
    build: (pair: (appId: string) => { userId: string; appId: string; account: UserStatus }, metadata: CommandMetadata) => RelationshipCommand,
    caller: RpcCaller,
  ): Promise<SimOutcome> {
    const account = await this.accountStatus(userId);
    const command = build((appId) => ({ userId, appId: String(appId), account }), { now: this.runtime.clock.now() });
    const events: DomainEvent[] = await runRelationshipCommand(this.runtime, command, caller.requestId ?? null);
    return { events: eventRefs(events) };
  }

  private async accountStatus(userId: string): Promise<UserStatus> {
    const user = typeof userId === 'string' ? await this.runtime.em().findOne(UserView, { userId }) : null;
    if (!user) throw new DomainError('not_found', 'No such user.');
    return user.status;
  }
}
