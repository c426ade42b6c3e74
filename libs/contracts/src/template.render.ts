/**
 * Message templates' rules and rendering, pure and shared (architecture section 13): messaging
 * decides with them and the console previews with them, so both read a template the same way.
 * They answer the failing fields as invalid_request details; the caller turns them into its error.
 */
import type { ErrorDetail } from './error-codes';
import type { TemplateVersionData } from './events/template.events';
import {
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGE_PATTERN,
  TEMPLATE_LIMITS,
  TEMPLATE_NAME_PATTERN,
  TEMPLATE_VARIABLE_NAME_PATTERN,
  type TemplateCategory,
  type TemplateComponents,
} from './templates';

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

/** What a check answers: the value once every rule holds, else every failing field. */
export type TemplateCheck<T> = { ok: true; value: T } | { ok: false; issues: ErrorDetail[] };

const checked = <T>(value: T, issues: ErrorDetail[]): TemplateCheck<T> => (issues.length > 0 ? { ok: false, issues } : { ok: true, value });

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

/** A version's content once its rules hold, its variables found; else every failing field. */
export function checkTemplateVersionInput(input: TemplateVersionInput): TemplateCheck<TemplateVersionData> {
  const { data, issues } = versionIssues(input);
  return checked(data, issues);
}

/** A new template once its rules hold (name, language and its first version); else every failing field. */
export function checkTemplateDraft(draft: TemplateDraft): TemplateCheck<TemplateVersionData & { name: string; language: string }> {
  const issues: ErrorDetail[] = [];
  if (typeof draft.name !== 'string' || !TEMPLATE_NAME_PATTERN.test(draft.name)) {
    issues.push({ field: 'name', issue: `must match ${TEMPLATE_NAME_PATTERN.source}` });
  }
  if (typeof draft.language !== 'string' || !TEMPLATE_LANGUAGE_PATTERN.test(draft.language)) {
    issues.push({ field: 'language', issue: 'must be a language code with an optional region, like en or en_US' });
  }
  const version = versionIssues(draft);
  issues.push(...version.issues);
  return checked({ name: draft.name, language: draft.language, ...version.data }, issues);
}

/**
 * A version's text with `values` for its variables: header, body and footer, those present, joined by
 * a blank line. Each variable needs a non-empty value and nothing else may be given; the details are
 * keyed `template.variables.<name>`, as the send's body names them. Values go in as they are: a value
 * holding `{{x}}` is not expanded again.
 */
export function renderTemplateText(
  content: Pick<TemplateVersionData, 'components' | 'variables'>,
  values: Readonly<Record<string, string>>,
): TemplateCheck<string> {
  const field = (name: string) => `template.variables.${name}`;
  const issues: ErrorDetail[] = [];
  for (const name of content.variables) {
    const value: unknown = values[name];
    if (value === undefined) issues.push({ field: field(name), issue: 'is required by the template' });
    else if (typeof value !== 'string' || value.length === 0) issues.push({ field: field(name), issue: 'must be a non-empty string' });
  }
  for (const name of Object.keys(values))
    if (!content.variables.includes(name)) issues.push({ field: field(name), issue: 'is not a variable of the template' });
  if (issues.length > 0) return { ok: false, issues };

  const fill = (text: string) => text.replace(PLACEHOLDER, (placeholder, name: string) => (content.variables.includes(name) ? values[name] : placeholder));
  const { header, body, footer } = content.components;
  // The footer holds no variables (checkTemplateVersionInput): it goes out as written.
  const text = [header && fill(header.text), fill(body.text), footer?.text].filter((part): part is string => part !== undefined).join('\n\n');
  const length = chars(text);
  if (length > TEMPLATE_LIMITS.renderedMax) {
    return {
      ok: false,
      issues: [{ field: 'template.variables', issue: `render a text of ${length} characters; a message holds at most ${TEMPLATE_LIMITS.renderedMax}` }],
    };
  }
  return { ok: true, value: text };
}

/** What a preview shows while a template is being written. */
export interface TemplatePreview {
  /** The variables of header and body, in order of first appearance. */
  variables: string[];
  /** The text a send would carry, each variable with a non-empty example filled in, the others left as `{{name}}`. */
  text: string;
}

/**
 * The rendered text of a template being written, however unfinished: as renderTemplateText joins and
 * fills the parts, but nothing refused (empty parts are left out, a variable without an example stays
 * `{{name}}`, the footer goes as written). The console answers it with every form and also ships this
 * function's own source to the browser for the preview as one types, so it must stay self-contained:
 * no reference to anything outside its body, and only syntax every current browser runs.
 */
export function previewTemplate(parts: { header?: string; body?: string; footer?: string }, examples: Readonly<Record<string, string>>): TemplatePreview {
  const placeholder = /\{\{([a-z0-9_]{1,64})\}\}/g;
  const variables: string[] = [];
  const fill = (text: string) =>
    text.replace(placeholder, (whole: string, name: string) => {
      if (!variables.includes(name)) variables.push(name);
      const value = Object.prototype.hasOwnProperty.call(examples, name) ? examples[name] : '';
      return typeof value === 'string' && value !== '' ? value : whole;
    });
  const shown = [parts.header ? fill(parts.header) : '', parts.body ? fill(parts.body) : '', parts.footer || ''];
  return { variables, text: shown.filter((part) => part !== '').join('\n\n') };
}
