/**
 * Part of the console's one script, served from its own origin (CSP script-src 'self'): a button with
 * `data-copy="<input id>"` copies that input's value. Without script the value can still be selected
 * and copied by hand; the page works the same.
 */
export const COPY_BUTTON_SCRIPT = `document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy'));
  if (!input) return;
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    document.execCommand('copy');
  }
  button.textContent = 'Copied';
});
`;
