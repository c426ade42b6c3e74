import Ajv from 'ajv';
import { EVENT_DATA_SCHEMAS, type TemplateCreated } from '#platform/contracts';
import { foldEvents } from '#platform/decider';
import { deciderSpecification } from '#platform/decider/testing';
import { templateDecider, type CreateTemplateFacts, type TemplateCommand, type TemplatePatch } from './template.decider';
import type { TemplateDraft } from './template.render';
import type { TemplateEvent } from './template.state';

const metadata = { now: new Date('2026-12-06T10:00:00Z') };
const spec = deciderSpecification(templateDecider);

const identity = { templateId: 'tpl_1', name: 'order_shipped', language: 'en_US' };
const components = { header: { text: 'Order {{order_id}}' }, body: { text: 'Hi {{name}}, order {{order_id}} ships today.' } };
const draft: TemplateDraft = { name: 'order_shipped', language: 'en_US', category: 'utility', components, examples: { order_id: 'A-1001', name: 'Ada' } };
const liveApp: CreateTemplateFacts = { appIsSandbox: false, templatesOfApp: 3, nameLanguageTaken: false };

const create = (facts: Partial<CreateTemplateFacts> = {}, over: Partial<TemplateDraft> = {}): TemplateCommand => ({
  type: 'CreateTemplate',
  data: { templateId: 'tpl_1', appId: 'app_1', draft: { ...draft, ...over }, facts: { ...liveApp, ...facts } },
  metadata,
});
const change = (patch: TemplatePatch, appIsSandbox = false, appId = 'app_1'): TemplateCommand => ({
  type: 'ChangeTemplate',
  data: { appId, patch, facts: { appIsSandbox } },
  metadata,
});
const review = (decision: 'approve' | 'reject', reason: string | null = null): TemplateCommand => ({
  type: 'ReviewTemplate',
  data: { decision, reason },
  metadata,
});
const remove = (appId = 'app_1'): TemplateCommand => ({ type: 'DeleteTemplate', data: { appId }, metadata });

const created = (approvedAtOnce = false): TemplateCreated => ({
  type: 'TemplateCreated',
  data: {
    ...identity,
    appId: 'app_1',
    category: 'utility',
    components,
    variables: ['order_id', 'name'],
    examples: { order_id: 'A-1001', name: 'Ada' },
    version: 1,
    approvedAtOnce,
  },
});
const changed = (version: number, over: Partial<Extract<TemplateEvent, { type: 'TemplateChanged' }>['data']> = {}): TemplateEvent => ({
  type: 'TemplateChanged',
  data: {
    ...identity,
    category: 'utility',
    components,
    variables: ['order_id', 'name'],
    examples: { order_id: 'A-1001', name: 'Ada' },
    version,
    approvedAtOnce: false,
    ...over,
  },
});
const approved = (version: number, reason: string | null = null): TemplateEvent => ({ type: 'TemplateApproved', data: { ...identity, version, reason } });
const rejected = (version: number, reason: string | null = 'Looks like marketing'): TemplateEvent => ({
  type: 'TemplateRejected',
  data: { ...identity, version, reason },
});
const deleted: TemplateEvent = { type: 'TemplateDeleted', data: identity };

describe('Template decider', () => {
  describe('create', () => {
    it("a live app's template waits for review: created as version 1, pending", () => spec.given([]).when(create()).then([created()]));

    it("a sandbox app's template is approved in the same decision", () =>
      spec
        .given([])
        .when(create({ appIsSandbox: true }))
        .then([created(true), approved(1)]));

    it('a template breaking the rules: 400 invalid_request with every failing field', () =>
      spec
        .given([])
        .when(create({}, { name: 'Order Shipped', examples: {} }))
        .thenThrows('invalid_request', (error) => expect(error.details?.map((d) => d.field)).toEqual(['name', 'examples.order_id', 'examples.name'])));

    it('the same name and language twice: 409 template_exists', () =>
      spec
        .given([])
        .when(create({ nameLanguageTaken: true }))
        .thenThrows('template_exists'));

    it('the 250th template is created, the 251st is refused: 409 template_limit_reached', () => {
      spec
        .given([])
        .when(create({ templatesOfApp: 249 }))
        .then([created()]);
      spec
        .given([])
        .when(create({ templatesOfApp: 250 }))
        .thenThrows('template_limit_reached');
    });

    it('checks in order: the request, then the name, then the limit', () => {
      spec
        .given([])
        .when(create({ nameLanguageTaken: true, templatesOfApp: 250 }, { category: 'promo' }))
        .thenThrows('invalid_request');
      spec
        .given([])
        .when(create({ nameLanguageTaken: true, templatesOfApp: 250 }))
        .thenThrows('template_exists');
    });

    it('an id is never created twice', () => spec.given([created()]).when(create()).thenThrows('invalid_transition'));
  });

  describe('change', () => {
    it('makes the next version, pending again, even from approved', () =>
      spec
        .given([created(), approved(1)])
        .when(change({ category: 'marketing' }))
        .then([changed(2, { category: 'marketing' })]));

    it('resubmits a rejected template as a new version', () =>
      spec
        .given([created(), rejected(1)])
        .when(change({}))
        .then([changed(2)]));

    it("a sandbox app's change is approved again at once", () =>
      spec
        .given([created(true), approved(1)])
        .when(change({ category: 'marketing' }, true))
        .then([changed(2, { category: 'marketing', approvedAtOnce: true }), approved(2)]));

    it('counts versions up from the last one', () =>
      spec
        .given([created(), approved(1), changed(2), rejected(2), changed(3)])
        .when(change({}))
        .then([changed(4)]));

    it('new components find their variables; the examples of variables still there are kept', () =>
      spec
        .given([created()])
        .when(change({ components: { body: { text: 'Order {{order_id}} is on its way.' } } }))
        .then([
          changed(2, { components: { body: { text: 'Order {{order_id}} is on its way.' } }, variables: ['order_id'], examples: { order_id: 'A-1001' } }),
        ]));

    it('a new variable needs an example', () =>
      spec
        .given([created()])
        .when(change({ components: { body: { text: 'Hi {{name}}, use {{coupon}}' } } }))
        .thenThrows('invalid_request', (error) =>
          expect(error.details).toEqual([{ field: 'examples.coupon', issue: 'is required: give an example value for every variable' }]),
        ));

    it('examples given replace the old ones and must match the variables exactly', () => {
      spec
        .given([created()])
        .when(change({ examples: { order_id: 'B-7', name: 'Grace' } }))
        .then([changed(2, { examples: { order_id: 'B-7', name: 'Grace' } })]);
      spec
        .given([created()])
        .when(change({ examples: { order_id: 'B-7' } }))
        .thenThrows('invalid_request', (error) => expect(error.details?.map((d) => d.field)).toEqual(['examples.name']));
    });

    it("another app's template looks absent: 404 not_found", () =>
      spec
        .given([created()])
        .when(change({}, false, 'app_2'))
        .thenThrows('not_found'));
  });

  describe('review', () => {
    it('approves a pending version', () =>
      spec
        .given([created()])
        .when(review('approve'))
        .then([approved(1)]));

    it('rejects a pending version with the reason', () =>
      spec
        .given([created()])
        .when(review('reject', 'Looks like marketing'))
        .then([rejected(1)]));

    it('reviews the current version after a change', () =>
      spec
        .given([created(), rejected(1), changed(2)])
        .when(review('approve', 'Fixed'))
        .then([approved(2, 'Fixed')]));

    it('an approved or rejected version is not reviewed again: 409 invalid_transition', () => {
      spec
        .given([created(), approved(1)])
        .when(review('reject'))
        .thenThrows('invalid_transition');
      spec
        .given([created(), rejected(1)])
        .when(review('approve'))
        .thenThrows('invalid_transition');
      spec
        .given([created(true), approved(1)])
        .when(review('approve'))
        .thenThrows('invalid_transition');
    });
  });

  describe('delete', () => {
    it('deletes a template in any status', () => {
      spec.given([created()]).when(remove()).then([deleted]);
      spec
        .given([created(), approved(1)])
        .when(remove())
        .then([deleted]);
    });

    it("another app's template looks absent: 404 not_found", () => spec.given([created()]).when(remove('app_2')).thenThrows('not_found'));
  });

  describe('a deleted or unknown template is gone for every command: 404 not_found', () => {
    it.each([
      ['change', change({})],
      ['review', review('approve')],
      ['delete', remove()],
    ])('%s', (_, command) => {
      spec.given([created(), deleted]).when(command).thenThrows('not_found');
      spec.given([]).when(command).thenThrows('not_found');
    });
  });

  describe('the folded state', () => {
    it('holds the current version, its status and the reason it was rejected', () => {
      expect(foldEvents(templateDecider, [created(), rejected(1)])).toMatchObject({
        kind: 'live',
        template: { version: 1, status: 'rejected', rejectedReason: 'Looks like marketing' },
      });
      expect(foldEvents(templateDecider, [created(), rejected(1), changed(2)])).toMatchObject({
        kind: 'live',
        template: { version: 2, status: 'pending', rejectedReason: null },
      });
      expect(foldEvents(templateDecider, [created(true), approved(1)])).toMatchObject({ kind: 'live', template: { appId: 'app_1', status: 'approved' } });
      expect(foldEvents(templateDecider, [created(), deleted])).toEqual({ kind: 'deleted' });
    });

    it('a verdict of another version than the current one changes nothing', () => {
      const state = foldEvents(templateDecider, [created(), changed(2)]);
      expect(templateDecider.evolve(state, approved(1))).toEqual(state);
    });
  });

  it('every event it decides matches its JSON Schema in libs/contracts', () => {
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const events = [
      ...templateDecider.decide(create({ appIsSandbox: true }), { kind: 'absent' }),
      ...templateDecider.decide(change({ components: { body: { text: 'No variables' } } }, true), foldEvents(templateDecider, [created(true), approved(1)])),
      ...templateDecider.decide(review('reject', 'No'), foldEvents(templateDecider, [created()])),
      ...templateDecider.decide(review('approve'), foldEvents(templateDecider, [created()])),
      ...templateDecider.decide(remove(), foldEvents(templateDecider, [created()])),
    ];
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(['TemplateCreated', 'TemplateChanged', 'TemplateApproved', 'TemplateRejected', 'TemplateDeleted']),
    );
    for (const event of events) {
      const validate = ajv.compile(EVENT_DATA_SCHEMAS[event.type]);
      expect({ type: event.type, valid: validate(event.data), errors: validate.errors ?? null }).toEqual({ type: event.type, valid: true, errors: null });
    }
  });
});
