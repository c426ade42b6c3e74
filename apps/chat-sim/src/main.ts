import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '@platform/contracts';
import type { OutboxRoute } from '@platform/event-store';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { ChatSimModule } from './chat-sim.module';
import { chatSimMigrations } from './persistence/migrations';
import { OrgView } from './persistence/org-view.entity';
import { UserView } from './persistence/user-view.entity';

/** Org events are keyed by orgId, user events by userId, so each aggregate's events stay in order. */
export function chatSimOutboxRoute(event: DomainEvent): OutboxRoute | null {
  const data = event.data as { orgId?: string; userId?: string };
  switch (event.type) {
    case 'OrgCreated':
    case 'OrgUpdated':
      return { topic: TOPICS.chatUserEvents, key: data.orgId as string, aggregateType: 'org' };
    case 'UserCreated':
    case 'UserStatusChanged':
      return { topic: TOPICS.chatUserEvents, key: data.userId as string, aggregateType: 'user' };
    default:
      return null;
  }
}

export async function startChatSim(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('chat-sim', 'chat_sim', 3060, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [OrgView, UserView],
    migrations: chatSimMigrations,
    outboxRoute: chatSimOutboxRoute,
  });
  await runtime.init();
  const app = await startNestService({
    runtime,
    module: { module: ChatSimModule, imports: [ServiceKitModule.forRoot(runtime, 'chat-sim')] },
    rpcService: 'chat-sim',
    port: config.port,
  });
  return {
    runtime,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

if (require.main === module) runMain(startChatSim);
