import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { apiKeyRequestIssues, MAX_ACTIVE_KEYS_PER_ENVIRONMENT, type KeyEnvironment, type KeyRequestIssue, type Scope } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { apiKeysPage, createdKeyPage } from './api-keys-page';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { page } from './layout';

const KEYS_LINK = (appId: string) => ({ href: `/apps/${appId}/keys`, label: 'Back to the keys' });
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const ISSUE_WORDS: Record<KeyRequestIssue['field'], string> = {
  environment: 'Choose sandbox or live.',
  scopes: 'Choose at least one scope.',
  expiresAt: 'The expiry is not a date.',
};

/**
 * An app's API keys. They live in the gateway, which answers keys.* over RPC with the same service,
 * decider and events as the admin API: the same limits and errors apply, and a revoked key is
 * refused by every gateway replica at once.
 */
@Controller()
export class ApiKeysController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/keys')
  async list(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    const { data: keys } = await this.rpc.call('gateway', 'keys.list', this.web.rpcCaller(appId), { appId });
    this.web.send(res, 200, page('API keys', apiKeysPage(appId, viewer, keys, this.web.runtime.clock.now()), viewer));
  }

  @Post('/apps/:appId/keys')
  async create(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    const expiresOn = String(req.body?.expiresOn ?? '').trim();
    const request = {
      appId,
      environment: String(req.body?.environment ?? '') as KeyEnvironment,
      scopes: ([] as unknown[]).concat(req.body?.scopes ?? []) as Scope[],
      expiresAt: expiresOn === '' ? null : DATE.test(expiresOn) ? `${expiresOn}T00:00:00.000Z` : expiresOn,
    };
    const [issue] = apiKeyRequestIssues(request);
    if (issue) return this.web.problem(res, 400, 'API keys', ISSUE_WORDS[issue.field], viewer, KEYS_LINK(appId));
    try {
      const created = await this.audit.change(
        appId,
        viewer.email,
        'key.created',
        (caller) => this.rpc.call('gateway', 'keys.create', caller, request),
        (key) => `${key.environment} ${key.id}`,
      );
      this.web.send(res, 201, page('API key created', createdKeyPage(appId, created, this.web.runtime.clock.now()), viewer));
    } catch (error) {
      if (!isDomainError(error)) throw error;
      if (error.code === 'key_limit_reached') {
        const words = `This app already has ${MAX_ACTIVE_KEYS_PER_ENVIRONMENT} active ${request.environment} keys, the most one environment holds. Revoke the key you no longer use, then create the new one.`;
        return this.web.problem(res, error.status, 'API keys', words, viewer, KEYS_LINK(appId));
      }
      if (error.code === 'invalid_request')
        return this.web.problem(res, error.status, 'API keys', 'The expiry must lie in the future.', viewer, KEYS_LINK(appId));
      throw error;
    }
  }

  @Post('/apps/:appId/keys/:keyId/revoke')
  async revoke(@Param('appId') appId: string, @Param('keyId') keyId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    await this.audit.change(
      appId,
      viewer.email,
      'key.revoked',
      (caller) => this.rpc.call('gateway', 'keys.revoke', caller, { appId, keyId }),
      (key) => `${key.environment} ${key.id}`,
    );
    this.web.redirect(res, `/apps/${appId}/keys`);
  }
}
