import {
  checkTemplateDraft,
  checkTemplateVersionInput,
  renderTemplateText,
  type TemplateCheck,
  type TemplateDraft,
  type TemplateRef,
  type TemplateVersionData,
  type TemplateVersionInput,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { TemplateState } from './template.state';

// The rules themselves are in libs/contracts (template.render.ts), shared with the console's preview.
export { templateVariablesOf, type TemplateDraft, type TemplateVersionInput } from '#platform/contracts';

/** A check's value, or 400 invalid_request listing every failing field. */
function valueOrRefusal<T>(check: TemplateCheck<T>): T {
  if (!check.ok) throw DomainError.invalid(check.issues);
  return check.value;
}

/** A version's content once its rules hold, its variables found; else 400 invalid_request listing every failing field. */
export function checkTemplateVersion(input: TemplateVersionInput): TemplateVersionData {
  return valueOrRefusal(checkTemplateVersionInput(input));
}

/** A new template once its rules hold (name, language and its first version); else 400 invalid_request listing every failing field. */
export function checkNewTemplate(draft: TemplateDraft): TemplateVersionData & { name: string; language: string } {
  return valueOrRefusal(checkTemplateDraft(draft));
}

/** A version's text with `values` for its variables (renderTemplateText); a missing or unknown variable, or too long a text: 400 invalid_request. */
export function renderTemplate(content: Pick<TemplateVersionData, 'components' | 'variables'>, values: Readonly<Record<string, string>>): string {
  return valueOrRefusal(renderTemplateText(content, values));
}

/** What a template send puts in its message: the rendered text and which template version it came from. */
export interface RenderedTemplate {
  text: string;
  template: TemplateRef;
}

/**
 * The send side of a template (`POST /messages` with `type: "template"`), for the send decision:
 * `state` is the app's template of the requested name and language as messaging holds it. None (or
 * deleted) → 404 template_not_found; its current version not approved → 409 template_not_approved
 * (a change of an approved template waits for its review before it can be sent again); a missing or
 * unknown variable → 400 invalid_request.
 */
export function renderTemplateForSend(state: TemplateState, variables: Readonly<Record<string, string>>): RenderedTemplate {
  if (state.kind !== 'live') throw new DomainError('template_not_found');
  const t = state.template;
  if (t.status !== 'approved') throw new DomainError('template_not_approved', `Version ${t.version} of the template is ${t.status}, not approved.`);
  return { text: renderTemplate(t, variables), template: { id: t.templateId, name: t.name, language: t.language, version: t.version } };
}
