/** Message templates (architecture section 13): what the API, the events and the console share about them. */

/** What a template is for; reviewers judge it by its category. */
export const TEMPLATE_CATEGORIES = ['utility', 'marketing', 'authentication'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/** A template's review status: a sandbox app's versions are approved at once, a live app's wait for the admin review. */
export const TEMPLATE_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** The admin review's verdicts (`POST /admin/v1/templates/{id}/review`). */
export const TEMPLATE_REVIEW_DECISIONS = ['approve', 'reject'] as const;
export type TemplateReviewDecision = (typeof TEMPLATE_REVIEW_DECISIONS)[number];

/** Limits of a template, in characters (code points). */
export const TEMPLATE_LIMITS = {
  maxPerApp: 250,
  headerMax: 60,
  bodyMin: 1,
  bodyMax: 1024,
  footerMax: 60,
  /** A rendered template becomes a message's text, which holds at most 4096 characters (spec, Limits). */
  renderedMax: 4096,
} as const;

/** `name`: lowercase letters, digits and underscores, 1–512. */
export const TEMPLATE_NAME_PATTERN = /^[a-z0-9_]{1,512}$/;
/** `language`: a language code with an optional region, `en` or `en_US`. */
export const TEMPLATE_LANGUAGE_PATTERN = /^[a-z]{2,3}(_[A-Z]{2})?$/;
/** A variable's name inside `{{…}}`, in the header and the body only. */
export const TEMPLATE_VARIABLE_NAME_PATTERN = /^[a-z0-9_]{1,64}$/;

/** One part of a template's text. */
export interface TemplateText {
  text: string;
}

/** A template's text: an optional header and footer around the body; variables only in header and body. */
export interface TemplateComponents {
  header?: TemplateText;
  body: TemplateText;
  footer?: TemplateText;
}

/** Which template and version a message was rendered from (the Message resource's `template`). */
export interface TemplateRef {
  id: string;
  name: string;
  language: string;
  version: number;
}

/** The template resource the API answers with (`GET /templates/{id}`, `POST /templates`, `PATCH`, the admin review). */
export interface TemplateResource {
  /** `tpl_…` */
  id: string;
  name: string;
  language: string;
  category: TemplateCategory;
  components: TemplateComponents;
  /** The variables' names, in the order they first appear (header, then body). */
  variables: string[];
  status: TemplateStatus;
  /** The reviewer's reason when the current version was rejected, else null. */
  rejectedReason: string | null;
  /** 1 when created, + 1 for each change; each version is reviewed on its own. */
  version: number;
  createdAt: string;
  updatedAt: string;
}
