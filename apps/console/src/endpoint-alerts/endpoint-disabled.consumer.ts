import { TOPICS } from '#platform/contracts';
import { enqueueMail } from '#platform/mail';
import type { ConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { ownersOf } from '../apps/apps.projection';
import { endpointDisabledEmails } from './endpoint-disabled.rule';

export interface EndpointAlertSettings {
  consoleUrl: string;
  mailFrom: string;
}

/**
 * D25: when the dispatcher disables an endpoint, its app's owners are emailed, in the inbox
 * transaction of the event (so exactly one email per owner is queued, however often it is read).
 */
export function endpointDisabledConsumer(runtime: ServiceRuntime, settings: EndpointAlertSettings): ConsumerSpec {
  return {
    name: 'endpoint-alerts',
    topics: [TOPICS.webhooksEvents],
    handlers: {
      WebhookEndpointDisabled: async (em, event) => {
        if (!event.appId) return;
        const [app] = await em.execute<{ display_name: string }[]>(`select display_name from console.apps where app_id = ?`, [event.appId]);
        // profile.events brings the app long before an endpoint can fail for 3 days; if it has not
        // arrived yet, failing here retries the event instead of mailing nobody.
        if (!app) throw new Error(`app ${event.appId} is not known to the console yet`);
        const emails = endpointDisabledEmails(event, {
          owners: await ownersOf(em, event.appId),
          appName: app.display_name,
          consoleUrl: settings.consoleUrl,
          now: runtime.clock.now(),
        });
        for (const email of emails) await enqueueMail(em, 'console', email, settings.mailFrom);
      },
    },
  };
}
