// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { RpcClient } from '#platform/kafka';
import { MailSender } from '#platform/mail';
import { loadBaseConfig, log, runMain, startService } from '#platform/service-kit';
import { appsConsumer } from './apps/apps.projection';
import { consoleModule } from './console.module';
import { loadConsoleSettings } from './console.config';
import { endpointDisabledConsumer } from './endpoint-alerts/endpoint-disabled.consumer';
import { consoleMigrations } from './persistence/migrations';

/**
 * The developer console (DESIGN section 11): the people behind an app. It owns members, sign-ins
 * and the emails sent to people; what it changes elsewhere (webhook endpoints, deliveries) goes
 * through the owning services over RPC, with their rules. It publishes no events yet.
 */
export async function startConsole(env: NodeJS.ProcessEnv = process.env) {
  // CONSOLE_PORT is the console's documented port variable; PORT (as every app) also works.
  const withPort: NodeJS.ProcessEnv = { ...env, PORT: env.CONSOLE_PORT ?? env.PORT };
  const settings = loadConsoleSettings(withPort, env.NODE_ENV === 'production');
  const base = loadBaseConfig('console', 'console', 3002, withPort);
  const rpc = new RpcClient({
    brokers: base.kafkaBrokers,
    instanceId: `console-${base.instanceId}`,
    services: ['gateway', 'webhooks', 'messaging', 'consent', 'profile', 'media'],
    timeoutMs: base.rpcTimeoutMs,
    sealer: settings.secretKeys,
    kafka: base.kafkaSecurity,
    sessionTimeoutMs: base.kafkaSessionTimeoutMs,
    onError: (error) => log('error', 'rpc client error', { error: String((error as Error)?.message ?? error) }),
  });
  const migrateOnly = base.migrateOnly;
  // Pages call the dispatcher as soon as they are served: the reply consumer joins first.
  if (!migrateOnly) await rpc.connect();
  const service = await startService(
    {
      name: 'console',
      schema: 'console',
      defaultPort: 3002,
      entities: [],
      migrations: consoleMigrations,
      outboxRoute: () => null,
      consumers: (runtime) => [appsConsumer(runtime), endpointDisabledConsumer(runtime, { consoleUrl: settings.consoleUrl, mailFrom: settings.mail.from })],
      module: consoleModule({ consoleUrl: settings.consoleUrl, mailFrom: settings.mail.from, trustedProxies: settings.trustedProxies, rpc }),
    },
    withPort,
  );
  const mailer = new MailSender({
    orm: service.runtime.orm,
    schema: 'console',
    transport: settings.mail.transport,
    from: settings.mail.from,
    now: () => service.runtime.clock.now(),
    onSent: (messageId) => log('info', 'email sent', { messageId }),
    onError: (error, context) => log('warn', 'email not sent yet', { ...context, error: String((error as Error)?.message ?? error) }),
  });
  mailer.start();
  return {
    runtime: service.runtime,
    close: async () => {
      await mailer.stop();
      await service.close();
      await rpc.close();
      settings.mail.transport.close();
    },
  };
}

if (require.main === module) runMain(startConsole);
