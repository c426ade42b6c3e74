import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { eventRefs, ID_PREFIX, newId, type ChatOrg, type RpcCaller, type RpcReplyOf, type RpcRequestOf } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { handleCommand } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { ServiceRuntime } from '#platform/service-kit';
import { OrgView } from '../persistence/org-view.entity';
import { orgDecider, type OrgCommand } from './org.decider';
import { projectOrgEvents } from './orgs.projection';

/** The chat product's organizations (admin API /orgs), served on chat-sim.rpc. */
@Injectable()
export class OrgsHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'chat-sim'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'orgs.create': (p, caller) => this.createOrg(p, caller),
      'orgs.update': (p, caller) => this.updateOrg(p.orgId, p.allowsExternalBusinesses, caller),
      'orgs.get': (p) => this.getOrg(p.orgId),
    });
  }

  async createOrg(p: RpcRequestOf<'chat-sim', 'orgs.create'>, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'orgs.create'>> {
    const orgId = newId(ID_PREFIX.org, this.runtime.clock.nowMs());
    const { events } = await this.execute(
      orgId,
      { type: 'CreateOrg', data: { orgId, name: p.name, allowsExternalBusinesses: p.allowsExternalBusinesses }, metadata: { now: this.runtime.clock.now() } },
      caller,
    );
    return { ...(await this.getOrg(orgId)), events: eventRefs(events) };
  }

  async updateOrg(orgId: string, allowsExternalBusinesses: boolean, caller: RpcCaller): Promise<RpcReplyOf<'chat-sim', 'orgs.update'>> {
    await this.view(orgId);
    const { events } = await this.execute(
      orgId,
      { type: 'UpdateOrg', data: { allowsExternalBusinesses }, metadata: { now: this.runtime.clock.now() } },
      caller,
    );
    return { ...(await this.getOrg(orgId)), events: eventRefs(events) };
  }

  async getOrg(orgId: string): Promise<ChatOrg> {
    const view = await this.view(orgId);
    return { id: view.orgId, name: view.name, allowsExternalBusinesses: view.allowsExternalBusinesses };
  }

  private async view(orgId: string): Promise<OrgView> {
    const view = typeof orgId === 'string' ? await this.runtime.em().findOne(OrgView, { orgId }) : null;
    if (!view) throw new DomainError('not_found', 'No such organization.');
    return view;
  }

  private execute(orgId: string, command: OrgCommand, caller: RpcCaller) {
    return handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: orgDecider,
      streamId: `org-${orgId}`,
      command,
      meta: { now: command.metadata.now, appId: null, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null },
      project: (em, events) => projectOrgEvents(em, events),
    });
  }
}
