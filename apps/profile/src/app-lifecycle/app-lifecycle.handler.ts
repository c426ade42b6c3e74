import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ID_PREFIX,
  newId,
  type AppRecord,
  type AppStatusAction,
  type AppStatusChanged,
  type BusinessProfile,
  type BusinessProfilePatch,
  type CreateAppCall,
  type MediaForUse,
  type RpcCaller,
  type RpcReplyOf,
  type VerificationStatus,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { handleCommand, isUniqueViolation } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { toBusinessProfile } from '../business-profile/business-profile.view';
import { AppView } from '../persistence/app-view.entity';
import { OrgView } from '../persistence/org-view.entity';
import { appDecider, type AppCommand } from './app.decider';
import { projectAppEvents } from './app-view.projection';

const DEFAULT_DAILY_QUOTA = 10000;
const AVATAR_URL_TTL_SECONDS = 2 * 3600;

/** App lifecycle and business profile operations, served on profile.rpc. */
@Injectable()
export class AppLifecycleHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'profile'>,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'apps.create': (p, caller) => this.createApp(p, caller),
      'apps.get': (p) => this.getApp(p.appId),
      'apps.changeStatus': (p, caller) => this.changeStatus(p.appId, p.action, p.reason ?? null, caller),
      'apps.setVerification': (p, caller) => this.setVerification(p.appId, p.status, caller),
      'apps.update': (p, caller) => this.updateApp(p.appId, p.dailyQuota, caller),
      'profile.get': (p) => this.getProfile(p.appId),
      'profile.update': (p, caller) => this.updateProfile(p.appId, p.patch, caller, p.avatar),
      'orgs.exists': async (p) => ({ exists: (await this.runtime.em().count(OrgView, { orgId: p.orgId })) > 0 }),
    });
  }

  async createApp(p: CreateAppCall, caller: RpcCaller): Promise<AppRecord> {
    const em = this.runtime.em();
    if ((await em.count(OrgView, { orgId: p.orgId })) === 0) throw new DomainError('not_found', 'No such organization.');
    if ((await em.count(AppView, { handle: p.handle })) > 0) throw new DomainError('handle_taken');
    const appId = newId(ID_PREFIX.app, this.runtime.clock.nowMs());
    try {
      await this.execute(
        appId,
        {
          type: 'CreateApp',
          data: { appId, orgId: p.orgId, handle: p.handle, displayName: p.displayName, creatorEmail: p.creatorEmail ?? null, dailyQuota: DEFAULT_DAILY_QUOTA },
          metadata: { now: this.runtime.clock.now() },
        },
        caller,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError('handle_taken');
      throw error;
    }
    return this.getApp(appId);
  }

  async getApp(appId: string): Promise<AppRecord> {
    const view = await this.view(appId);
    return {
      id: view.appId,
      orgId: view.orgId,
      handle: view.handle,
      status: view.status,
      verificationStatus: view.verificationStatus,
      dailyQuota: view.dailyQuota,
      version: view.version,
    };
  }

  async changeStatus(appId: string, action: AppStatusAction, reason: string | null, caller: RpcCaller): Promise<RpcReplyOf<'profile', 'apps.changeStatus'>> {
    const { events, version } = await this.execute(
      appId,
      { type: 'ChangeAppStatus', data: { action, reason }, metadata: { now: this.runtime.clock.now() } },
      caller,
    );
    const moved = events[0].data as AppStatusChanged['data'];
    return { status: moved.status, previousStatus: moved.previousStatus, version };
  }

  async setVerification(appId: string, status: VerificationStatus, caller: RpcCaller): Promise<RpcReplyOf<'profile', 'apps.setVerification'>> {
    const { version } = await this.execute(appId, { type: 'ChangeVerificationStatus', data: { status }, metadata: { now: this.runtime.clock.now() } }, caller);
    return { profile: await this.getProfile(appId), version };
  }

  async updateApp(appId: string, dailyQuota: number | undefined, caller: RpcCaller): Promise<AppRecord> {
    if (dailyQuota !== undefined) {
      await this.execute(appId, { type: 'SetDailyQuota', data: { dailyQuota }, metadata: { now: this.runtime.clock.now() } }, caller);
    }
    return this.getApp(appId);
  }

  async getProfile(appId: string): Promise<BusinessProfile> {
    const view = await this.view(appId);
    // Signed for two hours at each read, so the URL outlives the hour D17 promises.
    const avatarUrl = view.avatarObjectKey ? await this.bucket.presignDownload(view.avatarObjectKey, AVATAR_URL_TTL_SECONDS) : null;
    return toBusinessProfile(view, avatarUrl);
  }

  /** `avatar` is media.prepare's answer for the patch's avatarMediaId; the decider checks it (D10). */
  async updateProfile(appId: string, patch: BusinessProfilePatch, caller: RpcCaller, avatar?: MediaForUse): Promise<BusinessProfile> {
    await this.execute(appId, { type: 'UpdateBusinessProfile', data: { ...patch, avatar }, metadata: { now: this.runtime.clock.now() } }, caller);
    return this.getProfile(appId);
  }

  private async view(appId: string): Promise<AppView> {
    const view = await this.runtime.em().findOne(AppView, { appId });
    if (!view) throw new DomainError('not_found', 'No such app.');
    return view;
  }

  private execute(appId: string, command: AppCommand, caller: RpcCaller) {
    return handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: appDecider,
      streamId: `app-${appId}`,
      command,
      meta: { now: command.metadata.now, appId, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null },
      project: (em, events) => projectAppEvents(em, events),
    });
  }
}
