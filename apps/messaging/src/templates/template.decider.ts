import { TEMPLATE_LIMITS, type TemplateComponents, type TemplateReviewDecision, type TemplateVersionData } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { checkNewTemplate, checkTemplateVersion, templateVariablesOf, type TemplateDraft } from './template.render';
import { evolveTemplate, initialTemplateState, type TemplateEvent, type TemplateFacts, type TemplateState } from './template.state';

/**
 * What the rules need beyond the stream, read by the handler from messaging's own data under the app's
 * lock (so two creations cannot both take the last place or the same name).
 */
export interface CreateTemplateFacts {
  /** The app is in sandbox: its versions are approved at once. */
  appIsSandbox: boolean;
  /** The app's templates not deleted, before this one. */
  templatesOfApp: number;
  /** A template of the app not deleted has this name and language. */
  nameLanguageTaken: boolean;
}

/** `PATCH /templates/{id}`: what is absent stays as it was. */
export interface TemplatePatch {
  category?: string;
  components?: TemplateComponents;
  examples?: Record<string, string>;
}

export type TemplateCommand =
  /** `POST /templates`. */
  | Command<'CreateTemplate', { templateId: string; appId: string; draft: TemplateDraft; facts: CreateTemplateFacts }>
  /** `PATCH /templates/{id}` by the app `appId`. */
  | Command<'ChangeTemplate', { appId: string; patch: TemplatePatch; facts: { appIsSandbox: boolean } }>
  /** `POST /admin/v1/templates/{id}/review` (operators, any app). */
  | Command<'ReviewTemplate', { decision: TemplateReviewDecision; reason: string | null }>
  /** `DELETE /templates/{id}` by the app `appId`. */
  | Command<'DeleteTemplate', { appId: string }>;

/** The template, when it exists for `appId` (any app's when null: the operators' review); another app's looks absent. */
function liveTemplate(state: TemplateState, appId: string | null): TemplateFacts {
  if (state.kind !== 'live' || (appId !== null && state.template.appId !== appId)) throw new DomainError('not_found', 'No such template.');
  return state.template;
}

/** A submitted version: pending until reviewed, except a sandbox app's, which is approved in the same decision. */
function approvedAtOnce(template: Pick<TemplateFacts, 'templateId' | 'name' | 'language'>, version: number, appIsSandbox: boolean): TemplateEvent[] {
  if (!appIsSandbox) return [];
  const { templateId, name, language } = template;
  return [{ type: 'TemplateApproved', data: { templateId, name, language, version, reason: null } }];
}

/**
 * A change's content: what the patch gives over the current version. Examples left out keep those of
 * the variables still there, so a change that drops a variable needs no new examples.
 */
function changedVersion(current: TemplateFacts, patch: TemplatePatch): TemplateVersionData {
  const components = patch.components ?? current.components;
  const kept = templateVariablesOf(components);
  const examples = patch.examples ?? Object.fromEntries(Object.entries(current.examples).filter(([name]) => kept.includes(name)));
  return checkTemplateVersion({ category: patch.category ?? current.category, components, examples });
}

export function decideTemplate(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.kind !== 'absent') throw new DomainError('invalid_transition', 'The template exists already.');
      const { templateId, appId, draft, facts } = command.data;
      // Checked first, so a request with mistakes gets all of them whatever else holds.
      const content = checkNewTemplate(draft);
      if (facts.nameLanguageTaken) throw new DomainError('template_exists', `A template named ${content.name} in ${content.language} exists.`);
      if (facts.templatesOfApp >= TEMPLATE_LIMITS.maxPerApp) throw new DomainError('template_limit_reached');
      return [
        { type: 'TemplateCreated', data: { templateId, appId, ...content, version: 1, approvedAtOnce: facts.appIsSandbox } },
        ...approvedAtOnce({ templateId, ...content }, 1, facts.appIsSandbox),
      ];
    }
    case 'ChangeTemplate': {
      const current = liveTemplate(state, command.data.appId);
      const { category, components, variables, examples } = changedVersion(current, command.data.patch);
      const { templateId, name, language } = current;
      // Every change is a new version to review, even one that repeats the current text: it resubmits it.
      const version = current.version + 1;
      const { appIsSandbox } = command.data.facts;
      return [
        { type: 'TemplateChanged', data: { templateId, name, language, category, components, variables, examples, version, approvedAtOnce: appIsSandbox } },
        ...approvedAtOnce(current, version, appIsSandbox),
      ];
    }
    case 'ReviewTemplate': {
      const current = liveTemplate(state, null);
      if (current.status !== 'pending') {
        throw new DomainError('invalid_transition', `Only a pending template can be reviewed; version ${current.version} is ${current.status}.`);
      }
      const { templateId, name, language, version } = current;
      const verdict = { templateId, name, language, version, reason: command.data.reason };
      switch (command.data.decision) {
        case 'approve':
          return [{ type: 'TemplateApproved', data: verdict }];
        case 'reject':
          return [{ type: 'TemplateRejected', data: verdict }];
        default:
          return assertNever(command.data.decision);
      }
    }
    case 'DeleteTemplate': {
      const { templateId, name, language } = liveTemplate(state, command.data.appId);
      return [{ type: 'TemplateDeleted', data: { templateId, name, language } }];
    }
    default:
      return assertNever(command);
  }
}

export const templateDecider: Decider<TemplateState, TemplateCommand, TemplateEvent> = {
  initialState: initialTemplateState,
  decide: decideTemplate,
  evolve: evolveTemplate,
};
