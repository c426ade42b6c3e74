import { TEMPLATE_STATUSES, type TemplateStatus } from '#platform/contracts';
import type { RpcClient } from '#platform/kafka';
import { readQuery, type QuerySpec } from '../http/query-params';
import type { PublicContext, PublicRoute } from './public-route';
import { CreateTemplateDto, UpdateTemplateDto } from './template.dto';

const TEMPLATE_ID = { id: 'Template id (tpl_…).' };

/** GET /templates page size (architecture section 13). */
export const TEMPLATES_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** GET /templates' parameters: what the parser reads and the document shows. */
export const TEMPLATES_QUERY: QuerySpec = {
  refuseUnknown: true,
  params: [
    {
      name: 'name',
      kind: 'string',
      minLength: 1,
      maxLength: 512,
      pattern: /^[a-z0-9_]+$/,
      issue: 'must match ^[a-z0-9_]{1,512}$',
      description: 'Only templates of this name.',
    },
    { name: 'status', kind: 'enum', values: TEMPLATE_STATUSES, description: 'Only templates whose current version has this status.' },
    {
      name: 'language',
      kind: 'string',
      minLength: 2,
      maxLength: 6,
      pattern: /^[a-z]{2,3}(_[A-Z]{2})?$/,
      issue: 'must be a language code with an optional region, like en or en_US',
      description: 'Only templates in this language.',
    },
    { name: 'limit', kind: 'limit', ...TEMPLATES_LIMIT, description: 'Page size.' },
    {
      name: 'cursor',
      kind: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: /^[A-Za-z0-9_-]{1,128}$/,
      issue: 'is not a cursor from a previous page',
      description: 'nextCursor of the previous page.',
    },
  ],
};

/** /templates (scope templates:manage): answered by messaging, which owns templates (ADR 0222). */
export function templateRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  const template = (ctx: PublicContext) => ({ appId: ctx.app.appId, templateId: ctx.params.id });
  return [
    {
      method: 'POST',
      path: '/templates',
      scope: 'templates:manage',
      body: CreateTemplateDto,
      doc: {
        operationId: 'createTemplate',
        tag: 'Templates',
        summary: 'Create a template',
        description: "A sandbox app's template is approved at once; a live app's is pending until reviewed. Every status change is a template.status event.",
        success: { status: 201, schema: 'Template', description: 'The template.' },
        errors: ['template_exists', 'template_limit_reached'],
      },
      handle: async (ctx: PublicContext<CreateTemplateDto>) => {
        const { name, language, category, components, examples } = ctx.body;
        const payload = { appId: ctx.app.appId, name, language, category, components: { ...components }, examples: { ...examples } };
        return { status: 201, body: await deps.rpc.call('messaging', 'templates.create', ctx.caller, payload) };
      },
    },
    {
      method: 'GET',
      path: '/templates',
      scope: 'templates:manage',
      query: TEMPLATES_QUERY,
      doc: {
        operationId: 'listTemplates',
        tag: 'Templates',
        summary: 'List templates',
        description: 'Newest first. Follow nextCursor for the next page.',
        success: { status: 200, schema: 'TemplatePage', description: 'One page.' },
      },
      handle: async (ctx) => {
        const q = readQuery(TEMPLATES_QUERY, ctx.query);
        const payload = {
          appId: ctx.app.appId,
          name: q.name as string | null,
          status: q.status as TemplateStatus | null,
          language: q.language as string | null,
          limit: q.limit as number,
          cursor: q.cursor as string | null,
        };
        return { status: 200, body: await deps.rpc.call('messaging', 'templates.list', ctx.caller, payload) };
      },
    },
    {
      method: 'GET',
      path: '/templates/:id',
      scope: 'templates:manage',
      doc: {
        operationId: 'getTemplate',
        tag: 'Templates',
        summary: 'Get a template',
        pathParams: TEMPLATE_ID,
        success: { status: 200, schema: 'Template', description: 'The template.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('messaging', 'templates.get', ctx.caller, template(ctx)) }),
    },
    {
      method: 'PATCH',
      path: '/templates/:id',
      scope: 'templates:manage',
      body: UpdateTemplateDto,
      doc: {
        operationId: 'updateTemplate',
        tag: 'Templates',
        summary: 'Change a template',
        description:
          "A new version (version + 1), pending until reviewed (a sandbox app's approved at once); sends use the template again once it is approved.",
        pathParams: TEMPLATE_ID,
        success: { status: 200, schema: 'Template', description: 'The template after the change.' },
        errors: ['not_found'],
      },
      handle: async (ctx: PublicContext<UpdateTemplateDto>) => {
        const { category, components, examples } = ctx.body;
        const payload = {
          ...template(ctx),
          ...(category !== undefined ? { category } : {}),
          ...(components !== undefined ? { components: { ...components } } : {}),
          ...(examples !== undefined ? { examples: { ...examples } } : {}),
        };
        return { status: 200, body: await deps.rpc.call('messaging', 'templates.update', ctx.caller, payload) };
      },
    },
    {
      method: 'DELETE',
      path: '/templates/:id',
      scope: 'templates:manage',
      doc: {
        operationId: 'deleteTemplate',
        tag: 'Templates',
        summary: 'Delete a template',
        description: 'Its name and language are free again; sends by them answer template_not_found.',
        pathParams: TEMPLATE_ID,
        success: { status: 204, description: 'Deleted.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => {
        await deps.rpc.call('messaging', 'templates.delete', ctx.caller, template(ctx));
        return { status: 204 };
      },
    },
  ];
}
