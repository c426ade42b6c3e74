import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { randomBase62, type CreateOptInLinkCall, type OptInLink } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { pollUntil, ServiceRuntime } from '#platform/service-kit';
import { CONSENT_CONFIG, type ConsentConfig } from '../consent.config';
import { AppView } from '../persistence/app-view.entity';
import { readOptInLinkClaims, signOptInLink } from './optin-link.token';

/** D16: default lifetime of a link. */
export const DEFAULT_LINK_DAYS = 30;

/**
 * POST /optin-links. Links are stateless signed tokens: nothing to store, nothing to look up when
 * the user taps Allow; the consent service checks signature, app and expiry at that moment.
 */
@Injectable()
export class OptInLinksHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'consent'>,
    @Inject(CONSENT_CONFIG) private readonly config: ConsentConfig,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'optinLinks.create': (p) => this.create(p),
      'optinLinks.describe': async (p) => this.describe(p.token),
    });
  }

  async create(p: CreateOptInLinkCall): Promise<OptInLink> {
    const app = await this.app(p.appId);
    const ref = p.ref ?? null;
    // Whole seconds, as the token carries it, so expiresAt is exactly when Allow stops working.
    const expiresAt = new Date(Math.ceil((this.runtime.clock.nowMs() + (p.expiresInDays ?? DEFAULT_LINK_DAYS) * 24 * 3600 * 1000) / 1000) * 1000);
    const token = signOptInLink(this.config.optInLinkSecret, { appId: app.appId, linkId: randomBase62(16), ref, expiresAt });
    return { url: `${this.config.profileBaseUrl}/${encodeURIComponent(app.handle)}?optin=${token}`, token, ref, expiresAt: expiresAt.toISOString() };
  }

  /** Which app a link points at, as the chat product would read it from the link (not a proof of validity). */
  describe(token: string): { appId: string } {
    const claims = readOptInLinkClaims(token);
    if (!claims) throw new DomainError('not_found', 'No such opt-in link.');
    return { appId: claims.appId };
  }

  /** The app's handle; an app created a moment ago may not have reached this service's projection yet. */
  private async app(appId: string): Promise<AppView> {
    let app: AppView | null = null;
    await pollUntil(async () => (app = await this.runtime.em().findOne(AppView, { appId })) !== null, 3000, 20);
    if (!app) throw new DomainError('internal_error', 'The app is not known to the consent service yet; retry shortly.');
    return app;
  }
}
