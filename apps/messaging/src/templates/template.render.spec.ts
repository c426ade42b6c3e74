import type { ErrorDetail, ErrorCode } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { checkNewTemplate, checkTemplateVersion, renderTemplate, renderTemplateForSend, type TemplateDraft } from './template.render';
import type { TemplateFacts, TemplateState } from './template.state';

const draft = (over: Partial<TemplateDraft> = {}): TemplateDraft => ({
  name: 'order_shipped',
  language: 'en_US',
  category: 'utility',
  components: {
    header: { text: 'Order {{order_id}}' },
    body: { text: 'Hi {{name}}, order {{order_id}} ships today.' },
    footer: { text: 'Reply STOP to stop' },
  },
  examples: { order_id: 'A-1001', name: 'Ada' },
  ...over,
});

/** The error a call throws, which must be a DomainError. */
function refusal(call: () => unknown): DomainError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}
const details = (call: () => unknown, code: ErrorCode = 'invalid_request'): ErrorDetail[] => {
  const error = refusal(call);
  expect(error.code).toBe(code);
  return error.details ?? [];
};
const fields = (call: () => unknown) => details(call).map((d) => d.field);

// The rules and the rendering themselves are tested in libs/contracts (template.render.spec.ts).
describe('refusals', () => {
  it('a broken rule is 400 invalid_request listing every failing field', () => {
    expect(fields(() => checkNewTemplate(draft({ name: 'Bad Name', examples: {} })))).toEqual(['name', 'examples.order_id', 'examples.name']);
    expect(fields(() => checkTemplateVersion({ category: 'promo', components: { body: { text: 'x' } }, examples: {} }))).toEqual(['category']);
    expect(fields(() => renderTemplate(checkNewTemplate(draft()), {}))).toEqual(['template.variables.order_id', 'template.variables.name']);
  });
});

describe('rendering for a send', () => {
  const facts = (over: Partial<TemplateFacts> = {}): TemplateFacts => ({
    templateId: 'tpl_1',
    appId: 'app_1',
    ...checkNewTemplate(draft()),
    version: 3,
    status: 'approved',
    rejectedReason: null,
    ...over,
  });
  const live = (over: Partial<TemplateFacts> = {}): TemplateState => ({ kind: 'live', template: facts(over) });

  it('renders the approved version and names it', () => {
    expect(renderTemplateForSend(live(), { order_id: 'B-7', name: 'Grace' })).toEqual({
      text: 'Order B-7\n\nHi Grace, order B-7 ships today.\n\nReply STOP to stop',
      template: { id: 'tpl_1', name: 'order_shipped', language: 'en_US', version: 3 },
    });
  });

  it('no template, or a deleted one: 404 template_not_found', () => {
    expect(refusal(() => renderTemplateForSend({ kind: 'absent' }, {})).code).toBe('template_not_found');
    expect(refusal(() => renderTemplateForSend({ kind: 'deleted' }, {})).code).toBe('template_not_found');
  });

  it.each(['pending', 'rejected'] as const)('a %s version: 409 template_not_approved, before its variables are looked at', (status) => {
    const error = refusal(() => renderTemplateForSend(live({ status }), {}));
    expect(error.code).toBe('template_not_approved');
    expect(error.status).toBe(409);
  });

  it('a missing or unknown variable: 400 invalid_request', () => {
    expect(details(() => renderTemplateForSend(live(), { order_id: 'B-7', nme: 'Grace' }))).toEqual([
      { field: 'template.variables.name', issue: 'is required by the template' },
      { field: 'template.variables.nme', issue: 'is not a variable of the template' },
    ]);
  });
});
