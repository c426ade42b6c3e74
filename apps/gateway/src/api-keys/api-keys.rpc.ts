import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { apiKeyRequestIssues } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { ApiKeysService } from './api-keys.service';

/**
 * The developer console's way to an app's keys: the same service, decider and events as the admin
 * API's routes, so the same rules (2 active per environment, expiry in the future) and errors apply.
 */
@Injectable()
export class ApiKeysRpc implements OnModuleInit {
  constructor(
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'gateway'>,
    @Inject(ApiKeysService) private readonly keys: ApiKeysService,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'keys.create': (p, caller) => {
        // The caller is another service, but the payload still crosses the network: its shape is checked here.
        const issues = apiKeyRequestIssues(p);
        if (issues.length > 0) throw DomainError.invalid(issues);
        return this.keys.create(p.appId, { environment: p.environment, scopes: p.scopes, expiresAt: p.expiresAt ?? null }, caller);
      },
      'keys.list': async (p) => ({ data: await this.keys.list(p.appId) }),
      'keys.revoke': (p, caller) => this.keys.revoke(p.appId, p.keyId, caller),
    });
  }
}
