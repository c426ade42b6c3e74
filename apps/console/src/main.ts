// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { MailSender } from '#platform/mail';
import { log, runMain, startService } from '#platform/service-kit';
import { appsConsumer } from './apps/apps.projection';
import { consoleModule } from './console.module';
import { loadConsoleSettings } from './console.config';
import { endpointDisabledConsumer } from './endpoint-alerts/endpoint-disabled.consumer';
import { consoleMigrations } from './persistence/migrations';

/**
 * The developer console (DESIGN section 11): the people behind an app. It owns members, sign-ins
 * and the emails sent to people; it publishes no events yet.
 */
export async function startConsole(env: NodeJS.ProcessEnv = process.env) {
  const settings = loadConsoleSettings(env, env.NODE_ENV === 'production');
  const service = await startService(
    {
      name: 'console',
      schema: 'console',
      defaultPort: 3002,
      entities: [],
      migrations: consoleMigrations,
      outboxRoute: () => null,
      consumers: (runtime) => [appsConsumer(runtime), endpointDisabledConsumer(runtime, { consoleUrl: settings.consoleUrl, mailFrom: settings.mail.from })],
      module: consoleModule({ consoleUrl: settings.consoleUrl, mailFrom: settings.mail.from, trustedProxies: settings.trustedProxies }),
    },
    // CONSOLE_PORT is the console's documented port variable; PORT (as every app) also works.
    { ...env, PORT: env.CONSOLE_PORT ?? env.PORT },
  );
  const mailer = new MailSender({
    orm: service.runtime.orm,
    schema: 'console',
    transport: settings.mail.transport,
    from: settings.mail.from,
    onSent: (messageId) => log('info', 'email sent', { messageId }),
    onError: (error, context) => log('warn', 'email not sent yet', { ...context, error: String((error as Error)?.message ?? error) }),
  });
  mailer.start();
  return {
    runtime: service.runtime,
    close: async () => {
      await mailer.stop();
      await service.close();
      settings.mail.transport.close();
    },
  };
}

if (require.main === module) runMain(startConsole);
