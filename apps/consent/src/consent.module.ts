import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { CONSENT_CONFIG, loadConsentConfig } from './consent.config';
import { OptInLinksHandler } from './optin-links/optin-links.handler';
import { ConsentQueriesHandler } from './queries/consent-queries.handler';
import { ConsentVersionsPruner } from './queries/consent-versions.pruner';

@Module({
  providers: [
    { provide: CONSENT_CONFIG, useFactory: (runtime: ServiceRuntime) => loadConsentConfig(runtime.config), inject: [ServiceRuntime] },
    ConsentQueriesHandler,
    OptInLinksHandler,
    ConsentVersionsPruner,
  ],
})
export class ConsentModule {}
