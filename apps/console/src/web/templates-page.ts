import { previewTemplate, TEMPLATE_CATEGORIES, TEMPLATE_LIMITS, type ErrorDetail, type TemplateResource } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime } from './readable-time';

/** What a template form holds, as typed (nothing checked yet): the console answers it back with its errors and preview. */
export interface TemplateForm {
  name: string;
  language: string;
  category: string;
  header: string;
  body: string;
  footer: string;
  /** Example values by variable name (form fields `example.<name>`). */
  examples: Record<string, string>;
}

/** A refusal placed beside the field it names (`field` as the form names it), or above the form (`form`). */
export type FieldErrors = Record<string, string>;

export const EMPTY_TEMPLATE_FORM: TemplateForm = { name: '', language: 'en', category: 'utility', header: '', body: '', footer: '', examples: {} };

/** The form of a template as it is now (its examples are not part of the resource: the form starts without them). */
export function formOf(template: TemplateResource): TemplateForm {
  const { header, body, footer } = template.components;
  return {
    name: template.name,
    language: template.language,
    category: template.category,
    header: header?.text ?? '',
    body: body.text,
    footer: footer?.text ?? '',
    examples: {},
  };
}

/** The preview of what the form holds: the rendered text and the variables that need an example. */
export const formPreview = (form: TemplateForm) => previewTemplate({ header: form.header, body: form.body, footer: form.footer }, form.examples);

/** The form field an API error detail names (`components.body.text` → `body`, `examples.x` → `example.x`); `form` for the rest. */
export function fieldOf(apiField: string): string {
  if (apiField === 'name' || apiField === 'language' || apiField === 'category') return apiField;
  const part = /^components\.(header|body|footer)\b/.exec(apiField);
  if (part) return part[1];
  if (apiField.startsWith('components')) return 'body';
  if (apiField.startsWith('examples.')) return `example.${apiField.slice('examples.'.length)}`;
  return 'form';
}

/** invalid_request details as words beside their fields (several on one field joined). */
export function fieldErrors(details: readonly ErrorDetail[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { field, issue } of details) {
    const key = fieldOf(field);
    const words = `${field} ${issue}.`;
    errors[key] = errors[key] ? `${errors[key]} ${words}` : words;
  }
  return errors;
}

/** The list: each template's name, language, category, status, version, rejection reason and last change. */
export function templatesPage(appId: string, templates: TemplateResource[], nextCursor: string | null, now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a> · <a href="/apps/${appId}/templates/new">New template</a></p>
    <p>A sandbox app's templates are approved as soon as they are saved; a live app's wait for review. Every change is a new version, reviewed again.</p>
    ${
      templates.length === 0
        ? html`<p>No templates yet.</p>`
        : html`<table aria-label="Templates">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Language</th>
                <th scope="col">Category</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Rejection reason</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              ${templates.map(
                (t) =>
                  html`<tr aria-label="Template ${t.name} ${t.language}">
                    <td data-label="Name"><a href="/apps/${appId}/templates/${t.id}">${t.name}</a><br /><small>${t.id}</small></td>
                    <td data-label="Language">${t.language}</td>
                    <td data-label="Category">${t.category}</td>
                    <td data-label="Status">${t.status}</td>
                    <td data-label="Version">${t.version}</td>
                    <td data-label="Rejection reason">${t.rejectedReason ?? '–'}</td>
                    <td data-label="Updated">${readableTime(t.updatedAt, now)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${nextCursor ? html`<p><a href="/apps/${appId}/templates?cursor=${encodeURIComponent(nextCursor)}">Older templates</a></p>` : null}`;
}

/** A field's error beside it, tied to it by aria-describedby (errorRef). */
const errorText = (id: string, errors: FieldErrors, key: string) => (errors[key] ? html`<p class="field-error" id="${id}-error">${errors[key]}</p>` : null);
const errorRef = (id: string, errors: FieldErrors, key: string) => (errors[key] ? html`aria-invalid="true" aria-describedby="${id}-error"` : null);

/** One example input per variable the text names (the script adds and removes them as one types). */
function exampleFields(variables: string[], form: TemplateForm, errors: FieldErrors, editing: boolean): SafeHtml {
  return html`<fieldset id="examples">
    <legend>Examples</legend>
    <p>
      <small
        >One example value for each {{variable}}, for reviewers and for the preview.${editing ? ' Leave all empty to keep the current examples.' : ''}</small
      >
    </p>
    ${variables.map((name) => {
      const id = `example-${name}`;
      const key = `example.${name}`;
      return html`<div data-example="${name}">
        <label for="${id}">Example for {{${name}}}</label>
        <input id="${id}" name="${key}" type="text" value="${form.examples[name] ?? ''}" ${errorRef(id, errors, key)} />
        ${errorText(id, errors, key)}
      </div>`;
    })}
  </fieldset>`;
}

/**
 * The create or edit form beside its preview. The preview is rendered here on every answer, so it
 * works without script; the console's script (template-preview.script.ts) renders it again as one
 * types, with the same function.
 */
export function templateFormPage(
  appId: string,
  viewer: Viewer,
  form: TemplateForm,
  errors: FieldErrors,
  template: TemplateResource | null,
  now: Date,
): SafeHtml {
  const preview = formPreview(form);
  const action = template ? `/apps/${appId}/templates/${template.id}` : `/apps/${appId}/templates`;
  // A newline right after <textarea> is dropped by the parser: one goes first so a text's own first newline stays.
  const textArea = (key: 'header' | 'body' | 'footer', label: string, rows: number) =>
    html`<label for="${key}">${label}</label>
      <textarea id="${key}" name="${key}" rows="${rows}" ${key === 'body' ? html`required` : null} ${errorRef(key, errors, key)}>${'\n'}${form[key]}</textarea>
      ${errorText(key, errors, key)}`;
  return html`<p><a href="/apps/${appId}/templates">Back to the templates</a></p>
    ${errors.form ? html`<p class="notice" role="alert">${errors.form}</p>` : null}
    ${
      template
        ? html`<dl>
            <dt>Name and language</dt>
            <dd>${template.name} (${template.language})</dd>
            <dt>Status</dt>
            <dd>${template.status}, version ${template.version}</dd>
            ${
              template.rejectedReason
                ? html`<dt>Rejection reason</dt>
                    <dd>${template.rejectedReason}</dd>`
                : null
            }
            <dt>Updated</dt>
            <dd>${readableTime(template.updatedAt, now)}</dd>
          </dl>`
        : null
    }
    <div class="editor">
      <form method="post" action="${changeAction(action, viewer.csrfToken)}" data-template-form>
        ${
          template
            ? null
            : html`<label for="name">Name</label>
                <input id="name" name="name" type="text" required value="${form.name}" ${errorRef('name', errors, 'name')} />
                ${errorText('name', errors, 'name')}
                <label for="language">Language</label>
                <input id="language" name="language" type="text" required value="${form.language}" ${errorRef('language', errors, 'language')} />
                ${errorText('language', errors, 'language')}`
        }
        <label for="category">Category</label>
        <select id="category" name="category" ${errorRef('category', errors, 'category')}>
          ${TEMPLATE_CATEGORIES.map((c) => html`<option value="${c}" ${form.category === c ? html`selected` : null}>${c}</option>`)}
        </select>
        ${errorText('category', errors, 'category')} ${textArea('header', `Header (optional, at most ${TEMPLATE_LIMITS.headerMax} characters)`, 1)}
        ${textArea('body', `Body (at most ${TEMPLATE_LIMITS.bodyMax} characters)`, 6)}
        ${textArea('footer', `Footer (optional, no variables, at most ${TEMPLATE_LIMITS.footerMax} characters)`, 1)}
        ${exampleFields(preview.variables, form, errors, template !== null)}
        <button type="submit">${template ? 'Save changes' : 'Create template'}</button>
        <button type="submit" name="intent" value="preview">Update preview</button>
      </form>
      <section aria-labelledby="preview-heading">
        <h2 id="preview-heading">Preview</h2>
        <pre id="template-preview" aria-live="polite">${preview.text}</pre>
      </section>
    </div>
    ${
      template
        ? html`<form method="post" action="${changeAction(`/apps/${appId}/templates/${template.id}/delete`, viewer.csrfToken)}">
            <button type="submit" aria-label="Delete the template ${template.name} (${template.language})">Delete template</button>
          </form>`
        : null
    }`;
}
