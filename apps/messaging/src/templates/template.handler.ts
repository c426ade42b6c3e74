import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ID_PREFIX,
  newId,
  TEMPLATE_REVIEW_DECISIONS,
  type CreateTemplateCall,
  type ListTemplatesCall,
  type RpcCaller,
  type TemplatePage,
  type TemplateResource,
  type UpdateTemplateCall,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { StreamVersionConflict } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime } from '#platform/service-kit';
import { templateDecider, type TemplateCommand } from './template.decider';
import { templateProjectionStatements, templateResource, type TemplateRow } from './template.projection';
import {
  anyTemplateStatement,
  appStatusStatement,
  appTemplatesLockStatement,
  createFactsStatement,
  listTemplatesStatement,
  templateStatement,
} from './template.sql';

const MAX_RETRIES = 5;
const streamOf = (templateId: string) => `template-${templateId}`;
const encodeCursor = (templateId: string) => Buffer.from(templateId, 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^tpl_[0-9A-Z]{26}$/.test(id)) throw DomainError.invalid([{ field: 'cursor', issue: 'is not a cursor from a previous page' }]);
  return id;
}

/**
 * `/templates` and the admin review (ADR 0222): each command is decided by the template decider on
 * the template's stream and facts read here from messaging's own tables, then appended with the
 * inline projection (messaging.templates) in one transaction. Reads answer from that projection.
 */
@Injectable()
export class TemplateHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
  ) {}

  onModuleInit(): void {
    this.rpc.register('templates.create', (p, caller) => this.create(p, caller));
    this.rpc.register('templates.list', (p) => this.list(p));
    this.rpc.register('templates.get', (p) => this.get(p.appId, p.templateId));
    this.rpc.register('templates.update', (p, caller) => this.update(p, caller));
    this.rpc.register('templates.delete', async (p, caller) => {
      await this.decide(caller, p.templateId, p.appId, async () => ({ type: 'DeleteTemplate', data: { appId: p.appId }, metadata: { now: this.now() } }));
      return { deleted: true as const };
    });
    this.rpc.register('templates.review', (p, caller) => this.review(p, caller));
  }

  async create(p: CreateTemplateCall, caller: RpcCaller): Promise<TemplateResource> {
    const now = this.now();
    const templateId = newId(ID_PREFIX.template, now.getTime());
    await this.decide(caller, templateId, p.appId, async (em) => {
      await runStatement(em, appTemplatesLockStatement(p.appId));
      const [facts] = await runStatement<{ app_status: string | null; templates: number; taken: boolean }>(
        em,
        createFactsStatement(p.appId, String(p.name), String(p.language)),
      );
      const draft = { name: p.name, language: p.language, category: p.category, components: p.components, examples: p.examples };
      return {
        type: 'CreateTemplate',
        data: {
          templateId,
          appId: p.appId,
          draft,
          facts: { appIsSandbox: this.isSandbox(facts.app_status), templatesOfApp: Number(facts.templates), nameLanguageTaken: facts.taken },
        },
        metadata: { now },
      };
    });
    return this.get(p.appId, templateId);
  }

  async update(p: UpdateTemplateCall, caller: RpcCaller): Promise<TemplateResource> {
    const { appId, templateId, category, components, examples } = p;
    await this.decide(caller, templateId, appId, async (em) => {
      const [app] = await runStatement<{ status: string }>(em, appStatusStatement(appId));
      const patch = { category, components, examples };
      return { type: 'ChangeTemplate', data: { appId, patch, facts: { appIsSandbox: this.isSandbox(app?.status ?? null) } }, metadata: { now: this.now() } };
    });
    return this.get(appId, templateId);
  }

  async review(p: { templateId: string; decision: string; reason: string | null }, caller: RpcCaller): Promise<TemplateResource> {
    if (!(TEMPLATE_REVIEW_DECISIONS as readonly string[]).includes(p.decision)) {
      throw DomainError.invalid([{ field: 'decision', issue: `must be one of ${TEMPLATE_REVIEW_DECISIONS.join(', ')}` }]);
    }
    const decision = p.decision as (typeof TEMPLATE_REVIEW_DECISIONS)[number];
    await this.decide(caller, p.templateId, null, async () => ({
      type: 'ReviewTemplate',
      data: { decision, reason: p.reason ?? null },
      metadata: { now: this.now() },
    }));
    const [row] = await runStatement<TemplateRow>(this.runtime.em(), anyTemplateStatement(p.templateId));
    if (!row) throw new DomainError('not_found', 'No such template.');
    return templateResource(row);
  }

  async get(appId: string, templateId: string): Promise<TemplateResource> {
    const [row] = await runStatement<TemplateRow>(this.runtime.em(), templateStatement(appId, String(templateId)));
    if (!row) throw new DomainError('not_found', 'No such template.');
    return templateResource(row);
  }

  async list(q: ListTemplatesCall): Promise<TemplatePage> {
    const before = q.cursor ? decodeCursor(q.cursor) : null;
    const rows = await runStatement<TemplateRow>(this.runtime.em(), listTemplatesStatement({ ...q, before }));
    const page = rows.slice(0, q.limit);
    return { data: page.map(templateResource), nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1].template_id) : null };
  }

  private now(): Date {
    return this.runtime.clock.now();
  }

  /** Sandbox apps' versions are approved at once; an app messaging has not seen yet is treated as the sandbox app every new app is. */
  private isSandbox(status: string | null): boolean {
    return status === null || status === 'sandbox';
  }

  /**
   * Folds the template's stream, decides the command `build` makes (reading its facts in the same
   * transaction), appends the events and projects them; retried on a concurrent append. The events
   * are the template's app's (`appId` null: the operators', taken from the stream).
   */
  private async decide(caller: RpcCaller, templateId: string, appId: string | null, build: (em: EntityManager) => Promise<TemplateCommand>): Promise<void> {
    const streamId = streamOf(String(templateId));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.runtime
          .em()
          .fork()
          .transactional(async (em) => {
            const { state, version } = await this.runtime.eventStore.aggregate(em, streamId, templateDecider);
            const command = await build(em);
            const events = templateDecider.decide(command, state);
            const owner = appId ?? (state.kind === 'live' ? state.template.appId : null);
            const stored = await this.runtime.eventStore.append(em, streamId, version, events, {
              now: command.metadata.now,
              appId: owner,
              correlationId: caller.requestId ?? null,
              causationId: caller.requestId ?? null,
            });
            for (const { sql, params } of templateProjectionStatements(stored)) await em.execute(sql, params);
          });
        return;
      } catch (error) {
        if (error instanceof StreamVersionConflict && attempt < MAX_RETRIES) continue;
        throw error;
      }
    }
  }
}
