import { Controller, Get, Param, Post, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { memoryStorage } from 'multer';
import { AVATAR_MAX_BYTES, businessProfilePatchIssues, type BusinessProfilePatch, type MediaForUse, type RpcCaller } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { businessProfilePage } from './business-profile-page';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { page } from './layout';

const PROFILE_LINK = (appId: string) => ({ href: `/apps/${appId}/profile`, label: 'Back to the profile' });

/** A form field as the API takes it: trimmed, and an empty optional field is null (it clears). */
const optional = (value: unknown): string | null => {
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? null : text;
};

/**
 * The business profile, edited with the API's rules: the same patch to the profile service, and an
 * avatar through the media flow the API documents (media.create, the bytes PUT to the upload URL,
 * media.prepare's check on first use), so size, type and content checks are the media service's.
 */
@Controller()
export class BusinessProfileController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/profile')
  async show(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    const profile = await this.rpc.call('profile', 'profile.get', this.web.rpcCaller(appId), { appId });
    this.web.send(res, 200, page('Business profile', businessProfilePage(appId, viewer, profile, this.web.runtime.clock.now()), viewer));
  }

  @Post('/apps/:appId/profile')
  // One file, held in memory up to the avatar limit (larger is refused with 413 before any call).
  @UseInterceptors(FileInterceptor('avatar', { storage: memoryStorage(), limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 10 } }))
  async update(
    @Param('appId') appId: string,
    @UploadedFile() avatarFile: Express.Multer.File | undefined,
    @AppMember() viewer: AppMemberViewer,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const patch: BusinessProfilePatch = {
      displayName: String(req.body?.displayName ?? '').trim(),
      about: optional(req.body?.about),
      websiteUrl: optional(req.body?.websiteUrl),
      category: optional(req.body?.category),
    };
    const [issue] = businessProfilePatchIssues(patch);
    if (issue) return this.web.problem(res, 400, 'Business profile', `${FIELD_NAMES[issue.field]} ${issue.issue}.`, viewer, PROFILE_LINK(appId));
    if (req.body?.removeAvatar === 'yes') patch.avatarMediaId = null;
    await this.audit.change(
      appId,
      viewer.email,
      'profile.updated',
      async (caller) => {
        const avatar = avatarFile && avatarFile.size > 0 ? await this.uploadAvatar(appId, avatarFile, caller) : undefined;
        if (avatar) patch.avatarMediaId = avatar.mediaId;
        return this.rpc.call('profile', 'profile.update', caller, { appId, patch, avatar: avatar?.facts });
      },
      () => [...Object.keys(patch)].join(', '),
    );
    this.web.redirect(res, `/apps/${appId}/profile`);
  }

  /** The media flow of the API: create the upload, PUT the bytes to its URL, then media's check on first use. */
  private async uploadAvatar(appId: string, file: Express.Multer.File, caller: RpcCaller): Promise<{ mediaId: string; facts: MediaForUse }> {
    const created = await this.rpc.call('media', 'media.create', caller, {
      appId,
      fileName: file.originalname || 'avatar',
      mimeType: file.mimetype,
      size: file.size,
    });
    const put = await fetch(created.upload.url, { method: created.upload.method, headers: created.upload.headers, body: new Uint8Array(file.buffer) });
    if (!put.ok) throw new DomainError('internal_error', 'The avatar could not be stored; try again.');
    const facts = await this.rpc.call('media', 'media.prepare', caller, { appId, mediaId: created.media.id });
    return { mediaId: created.media.id, facts };
  }
}

const FIELD_NAMES: Record<keyof BusinessProfilePatch, string> = {
  displayName: 'The display name',
  about: 'About',
  websiteUrl: 'The website URL',
  category: 'The category',
  avatarMediaId: 'The avatar',
};
