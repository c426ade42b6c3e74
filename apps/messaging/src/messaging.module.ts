import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { AppsVersionHandler } from './audience/apps-version.handler';
import { MessageExpirySweeper } from './expire-messages/message-expiry.sweeper';
import { GetMessageHandler } from './get-message/get-message.handler';
import { loadMessagingConfig, MESSAGING_CONFIG } from './messaging.config';
import { QuotaUsageHandler } from './quota-usage/quota-usage.handler';
import { MessageCountsHandler } from './message-counts/message-counts.handler';
import { SendMessageHandler } from './send-message/send-message.handler';
import { TemplateHandler } from './templates/template.handler';

@Module({
  providers: [
    { provide: MESSAGING_CONFIG, useFactory: (runtime: ServiceRuntime) => loadMessagingConfig(runtime.config), inject: [ServiceRuntime] },
    SendMessageHandler,
    GetMessageHandler,
    AppsVersionHandler,
    QuotaUsageHandler,
    MessageCountsHandler,
    MessageExpirySweeper,
    TemplateHandler,
  ],
})
export class MessagingModule {}
