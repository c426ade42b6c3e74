import type { TemplateEvent, TemplateStatus, TemplateVersionData } from '#platform/contracts';

/** Events of one template (stream `template-<templateId>`), as defined in libs/contracts (template.events). */
export type { TemplateEvent };

/** What messaging knows of a template: its identity, its current version and that version's review. */
export interface TemplateFacts extends TemplateVersionData {
  templateId: string;
  appId: string;
  name: string;
  language: string;
  version: number;
  status: TemplateStatus;
  /** The reviewer's reason when the current version was rejected. */
  rejectedReason: string | null;
}

/** A template's stream (`template-<templateId>`) folded: not yet created, live, or deleted for good. */
export type TemplateState = { kind: 'absent' } | { kind: 'live'; template: TemplateFacts } | { kind: 'deleted' };

export const initialTemplateState = (): TemplateState => ({ kind: 'absent' });

export function evolveTemplate(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated': {
      const { approvedAtOnce: _, ...created } = event.data;
      return { kind: 'live', template: { ...created, status: 'pending', rejectedReason: null } };
    }
    case 'TemplateDeleted':
      return { kind: 'deleted' };
  }
  if (state.kind !== 'live') return state;
  const t = state.template;
  switch (event.type) {
    case 'TemplateChanged': {
      const { category, components, variables, examples, version } = event.data;
      return { kind: 'live', template: { ...t, category, components, variables, examples, version, status: 'pending', rejectedReason: null } };
    }
    // A verdict applies to the version it names; the decider only ever reviews the current one.
    case 'TemplateApproved':
      return event.data.version === t.version ? { kind: 'live', template: { ...t, status: 'approved', rejectedReason: null } } : state;
    case 'TemplateRejected':
      return event.data.version === t.version ? { kind: 'live', template: { ...t, status: 'rejected', rejectedReason: event.data.reason } } : state;
  }
}
