import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { TemplateComponents, TemplateResource } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { page } from './layout';
import { EMPTY_TEMPLATE_FORM, fieldErrors, formOf, formPreview, templateFormPage, templatesPage, type FieldErrors, type TemplateForm } from './templates-page';

/** How many templates the list shows at once (the API's most). */
const PAGE_SIZE = 100;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The form as sent: its fields, and the examples (`example.<name>`) of the variables its text names. */
function formFrom(body: Record<string, unknown> | undefined, current: TemplateResource | null): TemplateForm {
  const form: TemplateForm = {
    name: current?.name ?? text(body?.name).trim(),
    language: current?.language ?? text(body?.language).trim(),
    category: text(body?.category),
    header: text(body?.header),
    body: text(body?.body),
    footer: text(body?.footer),
    examples: {},
  };
  const withExamples = (examples: Record<string, string>) => ({ ...form, examples });
  const values = Object.fromEntries(Object.entries(body ?? {}).flatMap(([key, value]) => (key.startsWith('example.') ? [[key.slice(8), text(value)]] : [])));
  // Only the text's variables: an input left from a variable since removed is not one of the template's examples.
  const variables = formPreview(withExamples(values)).variables;
  return withExamples(Object.fromEntries(variables.map((name) => [name, values[name] ?? ''])));
}

/** The parts as the API takes them: an empty header or footer is none. */
function componentsOf(form: TemplateForm): TemplateComponents {
  return {
    ...(form.header !== '' ? { header: { text: form.header } } : {}),
    body: { text: form.body },
    ...(form.footer !== '' ? { footer: { text: form.footer } } : {}),
  };
}

/**
 * An app's message templates (architecture section 13). Messaging owns them: every change is the
 * same templates.* RPC operation the public API calls, so the same rules, limits and review apply,
 * and refusals come back beside the fields they name. Like keys and endpoints, any member of the
 * app may change them (owners alone manage the members).
 */
@Controller()
export class TemplatesController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/templates')
  async list(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Query('cursor') cursor: unknown, @Res() res: Response): Promise<void> {
    const { data, nextCursor } = await this.rpc.call('messaging', 'templates.list', this.web.rpcCaller(appId), {
      appId,
      name: null,
      status: null,
      language: null,
      limit: PAGE_SIZE,
      cursor: typeof cursor === 'string' && cursor !== '' ? cursor : null,
    });
    this.web.send(res, 200, page('Templates', templatesPage(appId, data, nextCursor, this.web.runtime.clock.now()), viewer));
  }

  @Get('/apps/:appId/templates/new')
  newForm(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): void {
    this.answerForm(res, 200, appId, viewer, EMPTY_TEMPLATE_FORM, {}, null);
  }

  @Post('/apps/:appId/templates')
  async create(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = formFrom(req.body, null);
    if (req.body?.intent === 'preview') return this.answerForm(res, 200, appId, viewer, form, {}, null);
    try {
      await this.audit.change(
        appId,
        viewer.email,
        'template.created',
        (caller) =>
          this.rpc.call('messaging', 'templates.create', caller, {
            appId,
            name: form.name,
            language: form.language,
            category: form.category,
            components: componentsOf(form),
            examples: form.examples,
          }),
        (template) => `${template.name} (${template.language})`,
      );
    } catch (error) {
      return this.refused(error, res, appId, viewer, form, null);
    }
    this.web.redirect(res, `/apps/${appId}/templates`);
  }

  @Get('/apps/:appId/templates/:templateId')
  async editForm(
    @Param('appId') appId: string,
    @Param('templateId') templateId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const template = await this.rpc.call('messaging', 'templates.get', this.web.rpcCaller(appId), { appId, templateId });
    this.answerForm(res, 200, appId, viewer, formOf(template), {}, template);
  }

  @Post('/apps/:appId/templates/:templateId')
  async update(
    @Param('appId') appId: string,
    @Param('templateId') templateId: string,
    @AppMember() viewer: AppMemberViewer,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const current = await this.rpc.call('messaging', 'templates.get', this.web.rpcCaller(appId), { appId, templateId });
    const form = formFrom(req.body, current);
    if (req.body?.intent === 'preview') return this.answerForm(res, 200, appId, viewer, form, {}, current);
    // Examples are not part of the template as the API shows it: left all empty, the current ones are kept.
    const examples = Object.values(form.examples).some((value) => value !== '') ? form.examples : undefined;
    try {
      await this.audit.change(
        appId,
        viewer.email,
        'template.changed',
        (caller) =>
          this.rpc.call('messaging', 'templates.update', caller, {
            appId,
            templateId,
            category: form.category,
            components: componentsOf(form),
            ...(examples ? { examples } : {}),
          }),
        (template) => `${template.name} (${template.language}), version ${template.version}`,
      );
    } catch (error) {
      return this.refused(error, res, appId, viewer, form, current);
    }
    this.web.redirect(res, `/apps/${appId}/templates`);
  }

  @Post('/apps/:appId/templates/:templateId/delete')
  async remove(
    @Param('appId') appId: string,
    @Param('templateId') templateId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    await this.audit.change(
      appId,
      viewer.email,
      'template.deleted',
      (caller) => this.rpc.call('messaging', 'templates.delete', caller, { appId, templateId }),
      () => templateId,
    );
    this.web.redirect(res, `/apps/${appId}/templates`);
  }

  /** A rule of the template refused: the form again, each refusal beside its field; any other refusal is the error page's. */
  private refused(error: unknown, res: Response, appId: string, viewer: AppMemberViewer, form: TemplateForm, current: TemplateResource | null): void {
    if (!isDomainError(error)) throw error;
    let errors: FieldErrors;
    if (error.code === 'invalid_request') errors = fieldErrors(error.details ?? []);
    else if (error.code === 'template_exists') errors = { name: `A template named ${form.name} in ${form.language} exists already.` };
    else if (error.code === 'template_limit_reached') errors = { form: error.message };
    else throw error;
    this.answerForm(res, error.status, appId, viewer, form, errors, current);
  }

  private answerForm(
    res: Response,
    status: number,
    appId: string,
    viewer: AppMemberViewer,
    form: TemplateForm,
    errors: FieldErrors,
    current: TemplateResource | null,
  ): void {
    const title = current ? `Template ${current.name}` : 'New template';
    this.web.send(res, status, page(title, templateFormPage(appId, viewer, form, errors, current, this.web.runtime.clock.now()), viewer));
  }
}
