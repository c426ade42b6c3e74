// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { assertKafkaUses, RPC_TOPIC_PARTITIONS } from '#platform/contracts';
import { MailSender } from '#platform/mail';
import { bootstrapServiceSchema, claimReplyPartition, loadBaseConfig, log, runMain, startService } from '#platform/service-kit';
import { consoleModule } from './console.module';
import { loadConsoleSettings } from './console.config';
import { consoleConsumers, consoleOutboxRoute, consoleRpcClient } from './console-kafka';
import { consoleMigrations } from './persistence/migrations';

/**
 * The developer console (architecture section 11): the people behind an app. It owns members, sign-ins
 * and the emails sent to people; what it changes elsewhere (webhook endpoints, deliveries) goes
 * through the owning services over RPC, with their rules. It publishes no events yet.
 */
export async function startConsole(env: NodeJS.ProcessEnv = process.env) {
  // CONSOLE_PORT is the console's documented port variable; PORT (as every app) also works.
  const withPort: NodeJS.ProcessEnv = { ...env, PORT: env.CONSOLE_PORT ?? env.PORT };
  const settings = loadConsoleSettings(withPort, env.NODE_ENV === 'production');
  const base = loadBaseConfig('console', 'console', 3002, withPort);
  const instanceId = `console-${base.instanceId}`;
  const migrateOnly = base.migrateOnly;
  // A reply partition of its own beside the gateways' (ADR 0203): on theirs it would fetch every
  // reply they wait for. The claim connects as the console's role, which a first start creates here
  // (the service's start would, a moment later).
  if (!migrateOnly) await bootstrapServiceSchema(base.databaseUrl, base.schema, base.serviceDatabasePassword);
  const replies = migrateOnly
    ? null
    : await claimReplyPartition({
        databaseUrl: base.serviceDatabaseUrl,
        instanceId,
        partitions: RPC_TOPIC_PARTITIONS,
        onError: (error) => log('warn', 'reply partition claim connection lost', { error: String((error as Error)?.message ?? error) }),
      });
  if (replies) log('info', 'reply partition claimed', { partition: replies.partition, exclusive: replies.exclusive });
  const rpc = consoleRpcClient(base, settings, replies?.partition);
  assertKafkaUses('console', rpc.kafkaUses());
  // Pages call the dispatcher as soon as they are served: the reply consumer joins first.
  if (!migrateOnly) await rpc.connect();
  const service = await startService(
    {
      name: 'console',
      schema: 'console',
      defaultPort: 3002,
      entities: [],
      migrations: consoleMigrations,
      outboxRoute: consoleOutboxRoute,
      consumers: (runtime) => consoleConsumers(runtime, settings),
      module: consoleModule({
        consoleUrl: settings.consoleUrl,
        mailFrom: settings.mail.from,
        trustedProxies: settings.trustedProxies,
        cookies: settings.cookies,
        secretKeys: settings.secretKeys,
        rpc,
      }),
      // The console's port faces people through the ingress: health, readiness and metrics are not theirs.
      internalPort: settings.internalPort,
      // No body is read before ChangeGuard has checked who sends it (FormBodyInterceptor and multer come after).
      bodyParser: false,
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
      await replies?.release();
      settings.mail.transport.close();
    },
  };
}

if (require.main === module) runMain(startConsole);
