import { TEMPLATE_CATEGORIES, TEMPLATE_LIMITS, type TemplateCategory, type TemplateComponents } from '../templates';
import { arrayOf, bool, int, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

/** What a version of a template says: the text, its variables and an example value for each. */
export interface TemplateVersionData {
  category: TemplateCategory;
  components: TemplateComponents;
  /** The variables' names in the order they first appear (header, then body). */
  variables: string[];
  /** An example value for every variable, shown to reviewers and in previews. */
  examples: Record<string, string>;
}

/** Every template event repeats which template it is, so consumers (the `template.status` public event) need no state. */
interface TemplateIdentity {
  templateId: string;
  name: string;
  language: string;
}

/**
 * Events of the Template aggregate (stream `template-<templateId>`), owned by messaging (ADR 0222) and
 * published on `messaging.events` keyed by `appId`, so one app's template events stay in order.
 *
 * TemplateCreated and TemplateChanged submit a version, which is pending until a TemplateApproved or
 * TemplateRejected of that version. A sandbox app's version is approved in the same decision: it
 * carries `approvedAtOnce` and its TemplateApproved follows, so `template.status` is published once,
 * as approved, and never as a pending that no one could see.
 */
export interface TemplateCreated {
  type: 'TemplateCreated';
  data: TemplateIdentity &
    TemplateVersionData & {
      appId: string;
      version: 1;
      /** A sandbox app's: approved in the same decision (a TemplateApproved follows); otherwise pending until reviewed. */
      approvedAtOnce: boolean;
    };
}
/** A new version (`PATCH /templates/{id}`): the version before it is replaced, whatever its status. */
export interface TemplateChanged {
  type: 'TemplateChanged';
  data: TemplateIdentity & TemplateVersionData & { version: number; approvedAtOnce: boolean };
}
export interface TemplateApproved {
  type: 'TemplateApproved';
  data: TemplateIdentity & { version: number; reason: string | null };
}
export interface TemplateRejected {
  type: 'TemplateRejected';
  data: TemplateIdentity & { version: number; reason: string | null };
}
/** Gone for good: its name and language are free again, and sends by them find nothing. */
export interface TemplateDeleted {
  type: 'TemplateDeleted';
  data: TemplateIdentity;
}
export type TemplateEvent = TemplateCreated | TemplateChanged | TemplateApproved | TemplateRejected | TemplateDeleted;

const identity = {
  templateId: str('The template (`tpl_…`).'),
  name: str('Its name.'),
  language: str('Its language, `en` or `en_US`.'),
};
const text = (description: string, maxLength: number, minLength = 1): JsonSchema => record({ text: str(description, { minLength, maxLength }) });
const versionData = {
  category: oneOf('What the template is for.', TEMPLATE_CATEGORIES),
  components: record(
    {
      header: text('Header text.', TEMPLATE_LIMITS.headerMax),
      body: text('Body text.', TEMPLATE_LIMITS.bodyMax, TEMPLATE_LIMITS.bodyMin),
      footer: text('Footer text, without variables.', TEMPLATE_LIMITS.footerMax),
    },
    ['header', 'footer'],
  ),
  variables: arrayOf('Variable names in order of first appearance.', str('A variable name.')),
  examples: { type: 'object', description: 'An example value for every variable.', additionalProperties: { type: 'string' } },
  approvedAtOnce: bool("A sandbox app's version: its TemplateApproved follows in the same decision."),
};
const verdict = { ...identity, version: int('The version reviewed.', { minimum: 1 }), reason: nullableStr("The reviewer's reason.") };

export const TEMPLATE_EVENT_SCHEMAS: Record<TemplateEvent['type'], JsonSchema> = {
  TemplateCreated: record({ ...identity, ...versionData, appId: str('The app (`app_…`).'), version: int('Always 1.', { const: 1 }) }),
  TemplateChanged: record({ ...identity, ...versionData, version: int('The new version.', { minimum: 2 }) }),
  TemplateApproved: record(verdict),
  TemplateRejected: record(verdict),
  TemplateDeleted: record(identity),
};
