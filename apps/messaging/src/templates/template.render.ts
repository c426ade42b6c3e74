import {
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGE_PATTERN,
  TEMPLATE_LIMITS,
  TEMPLATE_NAME_PATTERN,
  TEMPLATE_VARIABLE_NAME_PATTERN,
  type ErrorDetail,
  type TemplateCategory,
  type TemplateComponents,
  type TemplateRef,
  type TemplateVersionData,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { TemplateState } from './template.state';

/** A version's content as the API receives it, before its rules are checked (a POST, or a PATCH merged with the current version). */
export interface TemplateVersionInput {
  category: string;
  components: TemplateComponents;
  examples: Readonly<Record<string, string>>;
}

/** A new template as the API receives it (`POST /templates`). */
export interface TemplateDraft extends TemplateVersionInput {
  name: string;
  language: string;
}

/** A placeholder: `{{` and `}}` around anything without braces; only a valid name makes it a variable. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Limits count characters as people do (code points), not UTF-16 units: an emoji is one. */
const chars = (text: string) => [...text].length;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parts a template may have: their length limits and whether variables may appear in them. */
const PARTS = {
  header: { min: 1, max: TEMPLATE_LIMITS.headerMax, variables: true, required: false },
  body: { min: TEMPLATE_LIMITS.bodyMin, max: TEMPLATE_LIMITS.bodyMax, variables: true, required: true },
  footer: { min: 1, max: TEMPLATE_LIMITS.footerMax, variables: false, required: false },
} as const;
type Part = keyof typeof PARTS;
const PART_ORDER: readonly Part[] = ['header', 'body', 'footer'];

/** One text's variables in order of first appearance, and what is wrong with its placeholders (null: nothing). */
function scanText(text: string): { names: string[]; issue: string | null } {
  const names: string[] = [];
  let issue: string | null = null;
  for (const [, inner] of text.matchAll(PLACEHOLDER)) {
    if (!TEMPLATE_VARIABLE_NAME_PATTERN.test(inner)) issue ??= `{{${inner}}} is not a variable: a name is 1-64 of a-z, 0-9 and _`;
    else if (!names.includes(inner)) names.push(inner);
  }
  // A lone `{{` would reach users as is: most likely a variable mistyped.
  if (issue === null && text.replace(PLACEHOLDER, '').includes('{{')) issue = 'has a {{ that does not close as a {{variable}}';
  return { names, issue };
}

/** The components' variables (header, then body) and every rule they break, field by field. */
function componentIssues(components: unknown): { variables: string[]; issues: ErrorDetail[] } {
  if (!isRecord(components)) return { variables: [], issues: [{ field: 'components', issue: 'must be an object with a body' }] };
  const issues: ErrorDetail[] = [];
  const variables: string[] = [];
  for (const key of Object.keys(components)) if (!(key in PARTS)) issues.push({ field: `components.${key}`, issue: 'is not allowed' });
  for (const part of PART_ORDER) {
    const rule = PARTS[part];
    const value = components[part];
    if (value === undefined) {
      if (rule.required) issues.push({ field: `components.${part}`, issue: 'is required' });
      continue;
    }
    if (!isRecord(value) || typeof value.text !== 'string') {
      issues.push({ field: `components.${part}.text`, issue: 'must be a string' });
      continue;
    }
    for (const key of Object.keys(value)) if (key !== 'text') issues.push({ field: `components.${part}.${key}`, issue: 'is not allowed' });
    const field = `components.${part}.text`;
    const length = chars(value.text);
    if (length < rule.min || length > rule.max) issues.push({ field, issue: `must be ${rule.min} to ${rule.max} characters` });
    const { names, issue } = scanText(value.text);
    if (issue) issues.push({ field, issue });
    else if (names.length > 0 && !rule.variables) issues.push({ field, issue: 'must not contain variables' });
    else for (const name of names) if (!variables.includes(name)) variables.push(name);
  }
  return { variables, issues };
}

/** Every variable needs an example (reviewers read them), and an example names a variable. */
function exampleIssues(variables: readonly string[], examples: unknown): ErrorDetail[] {
  if (!isRecord(examples)) return [{ field: 'examples', issue: 'must be an object of example values by variable name' }];
  const issues: ErrorDetail[] = [];
  for (const name of variables) {
    const value = examples[name];
    if (value === undefined) issues.push({ field: `examples.${name}`, issue: 'is required: give an example value for every variable' });
    else if (typeof value !== 'string' || value.length === 0) issues.push({ field: `examples.${name}`, issue: 'must be a non-empty string' });
  }
  for (const name of Object.keys(examples))
    if (!variables.includes(name)) issues.push({ field: `examples.${name}`, issue: 'is not a variable of the template' });
  return issues;
}

/** The variables `components` name, header then body (none of a part with a malformed placeholder): a change keeps their examples. */
export function templateVariablesOf(components: TemplateComponents): string[] {
  return componentIssues(components).variables;
}

function versionIssues(input: TemplateVersionInput): { data: TemplateVersionData; issues: ErrorDetail[] } {
  const { variables, issues } = componentIssues(input.components);
  if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(input.category)) {
    issues.unshift({ field: 'category', issue: `must be one of ${TEMPLATE_CATEGORIES.join(', ')}` });
  }
  issues.push(...exampleIssues(variables, input.examples));
  const data = { category: input.category as TemplateCategory, components: input.components, variables, examples: { ...input.examples } };
  return { data, issues };
}

/** A version's content once its rules hold, its variables found; else 400 invalid_request listing every failing field. */
export function checkTemplateVersion(input: TemplateVersionInput): TemplateVersionData {
  const { data, issues } = versionIssues(input);
  if (issues.length > 0) throw DomainError.invalid(issues);
  return data;
}

/** A new template once its rules hold (name, language and its first version); else 400 invalid_request listing every failing field. */
export function checkNewTemplate(draft: TemplateDraft): TemplateVersionData & { name: string; language: string } {
  const issues: ErrorDetail[] = [];
  if (typeof draft.name !== 'string' || !TEMPLATE_NAME_PATTERN.test(draft.name)) {
    issues.push({ field: 'name', issue: `must match ${TEMPLATE_NAME_PATTERN.source}` });
  }
  if (typeof draft.language !== 'string' || !TEMPLATE_LANGUAGE_PATTERN.test(draft.language)) {
    issues.push({ field: 'language', issue: 'must be a language code with an optional region, like en or en_US' });
  }
  const version = versionIssues(draft);
  issues.push(...version.issues);
  if (issues.length > 0) throw DomainError.invalid(issues);
  return { name: draft.name, language: draft.language, ...version.data };
}

/**
 * A version's text with `values` for its variables: header, body and footer, those present, joined by
 * a blank line. Each variable needs a non-empty value and nothing else may be given; the details are
 * keyed `template.variables.<name>`, as the send's body names them. Values go in as they are: a value
 * holding `{{x}}` is not expanded again.
 */
export function renderTemplate(content: Pick<TemplateVersionData, 'components' | 'variables'>, values: Readonly<Record<string, string>>): string {
  const field = (name: string) => `template.variables.${name}`;
  const issues: ErrorDetail[] = [];
  for (const name of content.variables) {
    const value: unknown = values[name];
    if (value === undefined) issues.push({ field: field(name), issue: 'is required by the template' });
    else if (typeof value !== 'string' || value.length === 0) issues.push({ field: field(name), issue: 'must be a non-empty string' });
  }
  for (const name of Object.keys(values))
    if (!content.variables.includes(name)) issues.push({ field: field(name), issue: 'is not a variable of the template' });
  if (issues.length > 0) throw DomainError.invalid(issues);

  const fill = (text: string) => text.replace(PLACEHOLDER, (placeholder, name: string) => (content.variables.includes(name) ? values[name] : placeholder));
  const { header, body, footer } = content.components;
  // The footer holds no variables (checkTemplateVersion): it goes out as written.
  const text = [header && fill(header.text), fill(body.text), footer?.text].filter((part): part is string => part !== undefined).join('\n\n');
  const length = chars(text);
  if (length > TEMPLATE_LIMITS.renderedMax) {
    throw DomainError.invalid([
      { field: 'template.variables', issue: `render a text of ${length} characters; a message holds at most ${TEMPLATE_LIMITS.renderedMax}` },
    ]);
  }
  return text;
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
