import { previewTemplate } from '#platform/contracts';

/**
 * The template form's live preview (templates-page.ts), part of the console's one script. It runs
 * the shared previewTemplate itself (its source, which stands alone), so the preview as one types
 * is the one the server answers with; example inputs follow the variables the text names (one
 * whose variable is gone is disabled, so it is not sent). Without script, "Update preview" asks
 * the server for the same.
 */
export const TEMPLATE_PREVIEW_SCRIPT = `(() => {
  const previewTemplate = ${previewTemplate.toString()};
  const form = document.querySelector('form[data-template-form]');
  const output = document.getElementById('template-preview');
  const examples = document.getElementById('examples');
  if (!form || !output || !examples) return;
  const text = (name) => (form.elements.namedItem(name) ? form.elements.namedItem(name).value : '');
  const update = () => {
    const values = {};
    for (const input of examples.querySelectorAll('[data-example] input')) values[input.closest('[data-example]').dataset.example] = input.value;
    const preview = previewTemplate({ header: text('header'), body: text('body'), footer: text('footer') }, values);
    for (const name of preview.variables) {
      if (examples.querySelector('[data-example="' + name + '"]')) continue;
      const box = document.createElement('div');
      box.dataset.example = name;
      const label = document.createElement('label');
      label.htmlFor = 'example-' + name;
      label.textContent = 'Example for {{' + name + '}}';
      const input = document.createElement('input');
      input.id = 'example-' + name;
      input.name = 'example.' + name;
      input.type = 'text';
      box.append(label, input);
      examples.append(box);
    }
    for (const box of examples.querySelectorAll('[data-example]')) {
      const used = preview.variables.includes(box.dataset.example);
      box.hidden = !used;
      box.querySelector('input').disabled = !used;
    }
    output.textContent = preview.text;
  };
  form.addEventListener('input', update);
  update();
})();
`;
