import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  eventRefs,
  ID_PREFIX,
  newId,
  type ChatUser,
  type DomainEvent,
  type RpcCaller,
  type RpcReplyOf,
  type RpcRequestOf,
  type UserStatus,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { handleCommand, isUniqueViolation } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { ServiceRuntime } from '#platform/service-kit';
import { OrgView } from '../persistence/org-view.entity';
import { UserView } from '../persistence/user-view.entity';
import { userDecider, type UserCommand } from './user.decider';
import { projectUserEvents } from './users.projection';

const emailTaken = () => DomainError.invalid([{ field: 'email', issue: 'is taken' }], 'A user with that email exists already.');

/** The chat product's user accounts (admin API /users), served on chat-sim.rpc. */
@Injectable()
export class UsersHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'chat-sim'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'users.create': (p, caller) => this.createUser(p, caller),
      'users.update': (p, caller) => this.changeStatus(p.userId, p.status, caller),
      'users.get': (p) => this.getUser(p.userId),
    });
  }

  async createUser(p: RpcRequestOf<'chat-sim', 'users.create'>, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'users.create'>> {
    const em = this.runtime.em();
    if (typeof p.orgId !== 'string' || (await em.count(OrgView, { orgId: p.orgId })) === 0) throw new DomainError('not_found', 'No such organization.');
    const email = p.email.toLowerCase();
    if ((await em.count(UserView, { email })) > 0) throw emailTaken();
    const userId = newId(ID_PREFIX.user, this.runtime.clock.nowMs());
    let events: DomainEvent[];
    try {
      ({ events } = await this.execute(
        userId,
        { type: 'CreateUser', data: { userId, orgId: p.orgId, email, displayName: p.displayName ?? null }, metadata: { now: this.runtime.clock.now() } },
        caller,
      ));
    } catch (error) {
      // Two creations with the same email raced past the check: the unique index decides.
      if (isUniqueViolation(error)) throw emailTaken();
      throw error;
    }
    // The gateway waits until messaging knows the new recipient.
    return { ...(await this.getUser(userId)), events: eventRefs(events) };
  }

  async changeStatus(userId: string, status: UserStatus, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'users.update'>> {
    await this.view(userId);
    const { events } = await this.execute(userId, { type: 'ChangeUserStatus', data: { status }, metadata: { now: this.runtime.clock.now() } }, caller);
    // The gateway waits for the platform to take these in (a deletion opts the user out everywhere).
    return { ...(await this.getUser(userId)), events: eventRefs(events) };
  }

  async getUser(userId: string): Promise<ChatUser> {
    const view = await this.view(userId);
    return { id: view.userId, orgId: view.orgId, email: view.email, displayName: view.displayName, status: view.status };
  }

  private async view(userId: string): Promise<UserView> {
    const view = typeof userId === 'string' ? await this.runtime.em().findOne(UserView, { userId }) : null;
    if (!view) throw new DomainError('not_found', 'No such user.');
    return view;
  }

  private execute(userId: string, command: UserCommand, caller: RpcCaller) {
    return handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: userDecider,
      streamId: `user-${userId}`,
      command,
      meta: { now: command.metadata.now, appId: null, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null },
      project: (em, events) => projectUserEvents(em, events),
    });
  }
}
