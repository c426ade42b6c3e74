import type { ErrorDetail } from './error-codes';
import { checkTemplateDraft, checkTemplateVersionInput, previewTemplate, renderTemplateText, type TemplateCheck, type TemplateDraft } from './template.render';

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

/** A check's value, which must have passed. */
function valid<T>(check: TemplateCheck<T>): T {
  if (!check.ok) throw new Error(`expected no issues, got ${JSON.stringify(check.issues)}`);
  return check.value;
}
/** A check's failing fields, which must be some. */
function details(check: TemplateCheck<unknown>): ErrorDetail[] {
  if (check.ok) throw new Error('expected issues');
  return check.issues;
}
const fields = (check: TemplateCheck<unknown>) => details(check).map((d) => d.field);

describe('template rules', () => {
  it('a valid template keeps its parts and lists its variables in order of first appearance, header first', () => {
    expect(valid(checkTemplateDraft(draft()))).toEqual({
      name: 'order_shipped',
      language: 'en_US',
      category: 'utility',
      components: draft().components,
      variables: ['order_id', 'name'],
      examples: { order_id: 'A-1001', name: 'Ada' },
    });
  });

  it('header and footer are optional; a template without variables needs no examples', () => {
    expect(valid(checkTemplateDraft(draft({ components: { body: { text: 'Your code is ready.' } }, examples: {} }))).variables).toEqual([]);
  });

  describe('name and language', () => {
    it.each(['a', 'order_shipped_2', 'x'.repeat(512)])('name %s is valid', (name) => expect(valid(checkTemplateDraft(draft({ name }))).name).toBe(name));
    it.each(['', 'Order', 'order-shipped', 'order shipped', 'x'.repeat(513)])('name %j is not', (name) => {
      expect(details(checkTemplateDraft(draft({ name })))).toEqual([{ field: 'name', issue: 'must match ^[a-z0-9_]{1,512}$' }]);
    });
    it.each(['en', 'en_US', 'fil', 'pt_BR'])('language %s is valid', (language) =>
      expect(valid(checkTemplateDraft(draft({ language }))).language).toBe(language),
    );
    it.each(['', 'e', 'EN', 'en-US', 'en_us', 'english', 'en_USA', 'en_'])('language %j is not', (language) => {
      expect(fields(checkTemplateDraft(draft({ language })))).toEqual(['language']);
    });
  });

  it('category is one of utility, marketing, authentication', () => {
    for (const category of ['utility', 'marketing', 'authentication']) expect(valid(checkTemplateDraft(draft({ category }))).category).toBe(category);
    expect(details(checkTemplateDraft(draft({ category: 'promo' })))).toEqual([
      { field: 'category', issue: 'must be one of utility, marketing, authentication' },
    ]);
  });

  describe('components', () => {
    const withParts = (components: unknown) => checkTemplateDraft(draft({ components: components as TemplateDraft['components'], examples: {} }));
    it('the body is 1 to 1024 characters, header and footer at most 60, counted as characters not UTF-16 units', () => {
      expect(
        valid(checkTemplateDraft(draft({ components: { header: { text: '😀'.repeat(60) }, body: { text: 'é'.repeat(1024) } }, examples: {} }))).variables,
      ).toEqual([]);
      expect(details(withParts({ body: { text: '' } }))).toEqual([{ field: 'components.body.text', issue: 'must be 1 to 1024 characters' }]);
      expect(fields(withParts({ body: { text: 'x'.repeat(1025) } }))).toEqual(['components.body.text']);
      expect(fields(withParts({ header: { text: 'x'.repeat(61) }, body: { text: 'x' } }))).toEqual(['components.header.text']);
      expect(fields(withParts({ header: { text: '' }, body: { text: 'x' } }))).toEqual(['components.header.text']);
      expect(fields(withParts({ body: { text: 'x' }, footer: { text: 'x'.repeat(61) } }))).toEqual(['components.footer.text']);
    });
    it('the body is required; other parts and fields are not allowed', () => {
      expect(details(withParts({ header: { text: 'Hi' } }))).toEqual([{ field: 'components.body', issue: 'is required' }]);
      expect(fields(withParts({ body: { text: 'x' }, buttons: [] }))).toEqual(['components.buttons']);
      expect(fields(withParts({ body: { text: 'x', format: 'bold' } }))).toEqual(['components.body.format']);
      expect(fields(withParts({ body: { text: 5 } }))).toEqual(['components.body.text']);
      expect(fields(withParts(null))).toEqual(['components']);
    });
    it('variables go in the header and the body only', () => {
      expect(
        details(checkTemplateDraft(draft({ components: { body: { text: 'Hi {{name}}' }, footer: { text: 'Bye {{name}}' } }, examples: { name: 'Ada' } }))),
      ).toEqual([{ field: 'components.footer.text', issue: 'must not contain variables' }]);
    });
    it('a placeholder must hold a variable name of 1 to 64 of a-z, 0-9 and _', () => {
      const body = (text: string) => checkTemplateDraft(draft({ components: { body: { text } }, examples: {} }));
      expect(details(body('Hi {{Name}}'))).toEqual([{ field: 'components.body.text', issue: '{{Name}} is not a variable: a name is 1-64 of a-z, 0-9 and _' }]);
      expect(fields(body('Hi {{ name }}'))).toEqual(['components.body.text']);
      expect(fields(body('Hi {{}}'))).toEqual(['components.body.text']);
      expect(fields(body(`Hi {{${'x'.repeat(65)}}}`))).toEqual(['components.body.text']);
      expect(details(body('Hi {{name'))).toEqual([{ field: 'components.body.text', issue: 'has a {{ that does not close as a {{variable}}' }]);
      expect(
        valid(checkTemplateDraft(draft({ components: { body: { text: `Hi {{${'x'.repeat(64)}}} }` } }, examples: { ['x'.repeat(64)]: 'y' } }))).variables,
      ).toEqual(['x'.repeat(64)]);
    });
  });

  describe('examples', () => {
    it('every variable needs a non-empty example', () => {
      expect(details(checkTemplateDraft(draft({ examples: { order_id: 'A-1001' } })))).toEqual([
        { field: 'examples.name', issue: 'is required: give an example value for every variable' },
      ]);
      expect(details(checkTemplateDraft(draft({ examples: { order_id: 'A-1001', name: '' } })))).toEqual([
        { field: 'examples.name', issue: 'must be a non-empty string' },
      ]);
    });
    it('an example of no variable is refused', () => {
      expect(details(checkTemplateDraft(draft({ examples: { order_id: 'A-1001', name: 'Ada', coupon: 'X' } })))).toEqual([
        { field: 'examples.coupon', issue: 'is not a variable of the template' },
      ]);
    });
  });

  it('lists every failing field at once', () => {
    expect(
      fields(checkTemplateDraft({ name: 'Bad Name', language: 'english', category: 'promo', components: { body: { text: '' } }, examples: { x: 'y' } })),
    ).toEqual(['name', 'language', 'category', 'components.body.text', 'examples.x']);
  });

  it('a version alone is checked the same way (a change)', () => {
    expect(
      valid(checkTemplateVersionInput({ category: 'marketing', components: { body: { text: '{{a}} and {{b}} and {{a}}' } }, examples: { a: '1', b: '2' } })),
    ).toEqual({
      category: 'marketing',
      components: { body: { text: '{{a}} and {{b}} and {{a}}' } },
      variables: ['a', 'b'],
      examples: { a: '1', b: '2' },
    });
    expect(fields(checkTemplateVersionInput({ category: 'utility', components: { body: { text: '{{a}}' } }, examples: {} }))).toEqual(['examples.a']);
  });
});

describe('rendering', () => {
  const content = valid(checkTemplateDraft(draft()));

  it('fills header and body and joins the parts with a blank line', () => {
    expect(valid(renderTemplateText(content, { order_id: 'B-7', name: 'Grace' }))).toBe('Order B-7\n\nHi Grace, order B-7 ships today.\n\nReply STOP to stop');
  });

  it('skips absent parts', () => {
    expect(
      valid(
        renderTemplateText(valid(checkTemplateVersionInput({ category: 'utility', components: { body: { text: 'Hi {{name}}' } }, examples: { name: 'x' } })), {
          name: 'Ada',
        }),
      ),
    ).toBe('Hi Ada');
    expect(
      valid(
        renderTemplateText(
          valid(checkTemplateVersionInput({ category: 'utility', components: { header: { text: 'Hello' }, body: { text: 'Body' } }, examples: {} })),
          {},
        ),
      ),
    ).toBe('Hello\n\nBody');
    expect(
      valid(
        renderTemplateText(
          valid(checkTemplateVersionInput({ category: 'utility', components: { body: { text: 'Body' }, footer: { text: 'Foot' } }, examples: {} })),
          {},
        ),
      ),
    ).toBe('Body\n\nFoot');
  });

  it('puts values in as they are, never expanding a placeholder inside a value', () => {
    expect(valid(renderTemplateText(content, { order_id: '{{name}}', name: '$& $1' }))).toBe(
      'Order {{name}}\n\nHi $& $1, order {{name}} ships today.\n\nReply STOP to stop',
    );
  });

  it('a missing variable is refused, keyed template.variables.<name>', () => {
    expect(details(renderTemplateText(content, { order_id: 'B-7' }))).toEqual([{ field: 'template.variables.name', issue: 'is required by the template' }]);
  });

  it('an unknown variable is refused', () => {
    expect(details(renderTemplateText(content, { order_id: 'B-7', name: 'Grace', coupon: 'X' }))).toEqual([
      { field: 'template.variables.coupon', issue: 'is not a variable of the template' },
    ]);
  });

  it('an empty or non-string value is refused', () => {
    expect(details(renderTemplateText(content, { order_id: '', name: 42 as unknown as string }))).toEqual([
      { field: 'template.variables.order_id', issue: 'must be a non-empty string' },
      { field: 'template.variables.name', issue: 'must be a non-empty string' },
    ]);
  });

  it('lists every variable problem at once', () => {
    expect(fields(renderTemplateText(content, { coupon: 'X' }))).toEqual([
      'template.variables.order_id',
      'template.variables.name',
      'template.variables.coupon',
    ]);
  });

  it('a text longer than a message holds (4096 characters) is refused', () => {
    const long = valid(checkTemplateVersionInput({ category: 'utility', components: { body: { text: '{{a}}' } }, examples: { a: 'x' } }));
    expect(valid(renderTemplateText(long, { a: 'x'.repeat(4096) }))).toHaveLength(4096);
    expect(details(renderTemplateText(long, { a: 'x'.repeat(4097) }))).toEqual([
      { field: 'template.variables', issue: 'render a text of 4097 characters; a message holds at most 4096' },
    ]);
  });
});

describe('preview', () => {
  it('renders a finished template as a send would', () => {
    const { header, body, footer } = draft().components;
    expect(previewTemplate({ header: header?.text, body: body.text, footer: footer?.text }, draft().examples)).toEqual({
      variables: ['order_id', 'name'],
      text: valid(renderTemplateText(valid(checkTemplateDraft(draft())), draft().examples)),
    });
  });

  it('refuses nothing: a variable without an example stays a placeholder, empty parts are left out', () => {
    expect(previewTemplate({ header: '', body: 'Hi {{name}}, code {{code}} {{Bad}}', footer: 'Bye' }, { name: 'Ada', code: '' })).toEqual({
      variables: ['name', 'code'],
      text: 'Hi Ada, code {{code}} {{Bad}}\n\nBye',
    });
    expect(previewTemplate({}, {})).toEqual({ variables: [], text: '' });
    expect(previewTemplate({ body: '{{constructor}} {{a}}' }, { a: '$&' })).toEqual({ variables: ['constructor', 'a'], text: '{{constructor}} $&' });
  });

  it('stands alone, so its source can run in a browser as it is', () => {
    const shipped = new Function(`return ${previewTemplate.toString()}`)() as typeof previewTemplate;
    const parts = { header: 'Order {{id}}', body: 'Hi {{name}}', footer: 'Thanks' };
    expect(shipped(parts, { id: '7', name: 'Ada' })).toEqual(previewTemplate(parts, { id: '7', name: 'Ada' }));
  });
});
