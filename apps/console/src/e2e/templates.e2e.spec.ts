import { unique } from '#platform/testing';
import { appOwnedBy, csrfOf, signedInVisitor } from './console-visitor.test-helpers';

/** The text of a `<td data-label="…">` cell of a page (tags inside dropped). */
const cell = (body: string, label: string) =>
  new RegExp(`<td data-label="${label}">([\\s\\S]*?)</td>`)
    .exec(body)?.[1]
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The templates page: list, create (a refusal beside its field), the preview in every answer, edit, delete; members only. */
describe('console templates (e2e)', () => {
  it('lists, creates, previews, changes and deletes templates through messaging, beside the fields its rules name', async () => {
    const owner = `${unique('owner.')}@templates.example`;
    const appId = await appOwnedBy(owner, 'Templates App');
    const visitor = await signedInVisitor(owner);
    const name = unique('order_shipped_')
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_');

    const overview = await visitor.request('GET', `/apps/${appId}`);
    expect(overview.body).toContain(`<a href="/apps/${appId}/templates">Message templates</a>`);
    const empty = await visitor.request('GET', `/apps/${appId}/templates`);
    expect(empty.status).toBe(200);
    expect(empty.body).toContain('No templates yet.');

    // Without script: "Update preview" answers the form with an example field per variable and the rendered text.
    const blank = await visitor.request('GET', `/apps/${appId}/templates/new`);
    const csrf = csrfOf(blank.body);
    const fields = { csrf, name, language: 'en_US', category: 'utility', header: 'Order {{order_id}}', body: 'Hi {{name}}, order {{order_id}} ships today.' };
    const preview = await visitor.request('POST', `/apps/${appId}/templates`, {
      ...fields,
      footer: 'Reply STOP to stop',
      'example.name': 'Ada',
      intent: 'preview',
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toContain('<label for="example-order_id">Example for {{order_id}}</label>');
    expect(preview.body).toContain('Order {{order_id}}\n\nHi Ada, order {{order_id}} ships today.\n\nReply STOP to stop</pre>');

    // An example missing: refused by messaging's rule, shown beside its field, the preview still there.
    const refused = await visitor.request('POST', `/apps/${appId}/templates`, { ...fields, 'example.name': 'Ada', 'example.order_id': '' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(
      /<input id="example-order_id" name="example.order_id" type="text" value="" aria-invalid="true" aria-describedby="example-order_id-error" \/>/,
    );
    expect(refused.body).toContain('<p class="field-error" id="example-order_id-error">examples.order_id must be a non-empty string.</p>');
    expect(refused.body).toContain('Order {{order_id}}\n\nHi Ada, order {{order_id}} ships today.</pre>');

    const created = await visitor.request('POST', `/apps/${appId}/templates`, { ...fields, 'example.name': 'Ada', 'example.order_id': 'A-1001' });
    expect(created.location).toBe(`/apps/${appId}/templates`);
    const listed = await visitor.request('GET', `/apps/${appId}/templates`);
    const templateId = new RegExp(`/apps/${appId}/templates/(tpl_[A-Za-z0-9]+)"`).exec(listed.body)![1];
    expect([cell(listed.body, 'Language'), cell(listed.body, 'Category'), cell(listed.body, 'Version')]).toEqual(['en_US', 'utility', '1']);
    expect(['approved', 'pending']).toContain(cell(listed.body, 'Status'));
    expect(cell(listed.body, 'Rejection reason')).toBe('–');
    expect(listed.body).toMatch(/<td data-label="Updated"><time datetime="[^"]+" title="[^"]+ UTC">just now<\/time><\/td>/);
    // The same name and language again: beside the name.
    const twice = await visitor.request('POST', `/apps/${appId}/templates`, { ...fields, 'example.name': 'Ada', 'example.order_id': 'A-1001' });
    expect(twice.status).toBe(409);
    expect(twice.body).toContain(`<p class="field-error" id="name-error">A template named ${name} in en_US exists already.</p>`);

    // Edit: the current text in the form; a change without examples keeps them; a new variable needs one.
    const edit = await visitor.request('GET', `/apps/${appId}/templates/${templateId}`);
    expect(edit.status).toBe(200);
    expect(edit.body).toContain('Hi {{name}}, order {{order_id}} ships today.</textarea>');
    const editCsrf = csrfOf(edit.body);
    const changed = await visitor.request('POST', `/apps/${appId}/templates/${templateId}`, {
      csrf: editCsrf,
      category: 'marketing',
      header: '',
      body: 'Hi {{name}}, {{order_id}} is on its way.',
    });
    expect(changed.location).toBe(`/apps/${appId}/templates`);
    const newVariable = await visitor.request('POST', `/apps/${appId}/templates/${templateId}`, {
      csrf: editCsrf,
      category: 'marketing',
      body: 'Hi {{name}}, use {{coupon}}.',
      'example.name': 'Ada',
    });
    expect(newVariable.status).toBe(400);
    expect(newVariable.body).toContain('<p class="field-error" id="example-coupon-error">examples.coupon must be a non-empty string.</p>');
    expect(newVariable.body).toContain('Hi Ada, use {{coupon}}.</pre>');
    const after = await visitor.request('GET', `/apps/${appId}/templates`);
    expect([cell(after.body, 'Category'), cell(after.body, 'Version')]).toEqual(['marketing', '2']);

    const deleted = await visitor.request('POST', `/apps/${appId}/templates/${templateId}/delete`, { csrf: editCsrf });
    expect(deleted.location).toBe(`/apps/${appId}/templates`);
    expect((await visitor.request('GET', `/apps/${appId}/templates`)).body).toContain('No templates yet.');
    expect((await visitor.request('GET', `/apps/${appId}`)).body).toContain(`${owner} deleted the message template ${templateId}`);

    // Someone signed in but not a member: the same 404 as for no app, to look or to change.
    const stranger = `${unique('stranger.')}@templates.example`;
    await appOwnedBy(stranger, 'Elsewhere');
    const other = await signedInVisitor(stranger);
    expect((await other.request('GET', `/apps/${appId}/templates`)).status).toBe(404);
    expect((await other.request('GET', `/apps/${appId}/templates/new`)).status).toBe(404);
    const theirs = csrfOf((await other.request('GET', '/apps')).body);
    expect((await other.request('POST', `/apps/${appId}/templates`, { ...fields, csrf: theirs })).status).toBe(404);
  }, 60_000);
});
