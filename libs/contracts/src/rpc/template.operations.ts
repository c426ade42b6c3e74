/**
 * Messaging's template operations (architecture section 13, ADR 0222): `/templates` and the admin
 * review. Part of the operation map in ../rpc-operations.ts, beside messaging's other operations.
 */
import type { TemplateComponents, TemplateResource, TemplateReviewDecision, TemplateStatus } from '../templates';

/** `POST /templates` as the gateway passes it once the body's shape is checked; the rules are messaging's. */
export interface CreateTemplateCall {
  appId: string;
  name: string;
  language: string;
  category: string;
  components: TemplateComponents;
  examples: Record<string, string>;
}

/** `PATCH /templates/{id}`: what is absent stays as it was. */
export interface UpdateTemplateCall {
  appId: string;
  templateId: string;
  category?: string;
  components?: TemplateComponents;
  examples?: Record<string, string>;
}

/** `GET /templates`: filters, page size and the opaque cursor of the previous page. */
export interface ListTemplatesCall {
  appId: string;
  name: string | null;
  status: TemplateStatus | null;
  language: string | null;
  limit: number;
  cursor: string | null;
}

/** One page of an app's templates, newest first. */
export interface TemplatePage {
  data: TemplateResource[];
  nextCursor: string | null;
}

export interface TemplateOperations {
  'templates.create': { request: CreateTemplateCall; reply: TemplateResource };
  'templates.list': { request: ListTemplatesCall; reply: TemplatePage };
  /** Another app's or a deleted template: not_found. */
  'templates.get': { request: { appId: string; templateId: string }; reply: TemplateResource };
  'templates.update': { request: UpdateTemplateCall; reply: TemplateResource };
  'templates.delete': { request: { appId: string; templateId: string }; reply: { deleted: true } };
  /** `POST /admin/v1/templates/{id}/review` (operators, any app); only a pending version (else 409 invalid_transition). */
  'templates.review': { request: { templateId: string; decision: TemplateReviewDecision; reason: string | null }; reply: TemplateResource };
}
