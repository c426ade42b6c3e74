import { fieldErrors, fieldOf } from './templates-page';

describe('template form refusals', () => {
  it('puts each API field beside the form field that holds it', () => {
    expect(['name', 'language', 'category', 'components.header.text', 'components.body', 'components.footer.text', 'components.buttons'].map(fieldOf)).toEqual([
      'name',
      'language',
      'category',
      'header',
      'body',
      'footer',
      'body',
    ]);
    expect(fieldOf('examples.order_id')).toBe('example.order_id');
    expect(fieldOf('examples')).toBe('form');
  });

  it('joins several refusals of one field', () => {
    expect(
      fieldErrors([
        { field: 'components.body.text', issue: 'must be 1 to 1024 characters' },
        { field: 'components.body.text', issue: 'has a {{ that does not close as a {{variable}}' },
      ]),
    ).toEqual({ body: 'components.body.text must be 1 to 1024 characters. components.body.text has a {{ that does not close as a {{variable}}.' });
  });
});
