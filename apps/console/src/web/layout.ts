import { html, SafeHtml } from './html';

/**
 * The action of a form that changes something: its CSRF token rides in the URL, so the console
 * checks it (with the session) from the request's head, before it reads a byte of the body
 * (ChangeGate). Tokens are URL-safe.
 */
export function changeAction(path: string, csrfToken: string): string {
  return `${path}?csrf=${encodeURIComponent(csrfToken)}`;
}

/** What every page knows of the person looking at it. */
export interface Viewer {
  email: string;
  csrfToken: string;
}

/**
 * One stylesheet, no script needed. Tables never scroll sideways: the main column is wide enough
 * for the widest (the keys' eight columns) at 1280 px, and long values (ids, URLs, signatures:
 * code, small print, links) may break anywhere inside their cells, while words do not. At phone width each row becomes a card whose cells stack, each under
 * its column's name (`data-label`).
 */
const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; }
  header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; padding: .75rem 1rem; border-bottom: 1px solid #8884; }
  main { max-width: 80rem; margin: 0 auto; padding: 1rem; box-sizing: border-box; }
  a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 2px solid currentColor; outline-offset: 2px; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input[type=email], input[type=text], select, textarea { width: 100%; max-width: 24rem; padding: .5rem; font: inherit; box-sizing: border-box; }
  button { font: inherit; padding: .5rem 1rem; margin-top: .75rem; cursor: pointer; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid #8883; overflow-wrap: break-word; }
  td code, td small, td a, td pre { overflow-wrap: anywhere; }
  td button { margin-top: 0; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: .875rem; }
  section > pre { padding: .75rem; border-radius: .25rem; background: #8881; }
  h1, code, dd { overflow-wrap: anywhere; }
  .notice { padding: .75rem 1rem; border-radius: .25rem; background: #8882; }
  form.inline { display: inline; }
  textarea { max-width: 36rem; }
  .field-error { margin: .25rem 0 0; color: light-dark(#b71c1c, #ff8a80); font-weight: 600; }
  .editor { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 0 2rem; }
  fieldset { min-width: 0; }
  figure { margin: 1rem 0 2rem; min-width: 0; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); gap: 0 2rem; }
  figure table th, figure table td { padding: .1rem .5rem; font-size: .875rem; }
  figcaption { font-weight: 600; margin-bottom: .5rem; }
  svg.chart { display: block; height: auto; max-width: 100%; }
  ul.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; padding: 0; margin: .5rem 0; }
  ul.legend svg { vertical-align: -2px; }
  table.stack { display: table; table-layout: fixed; }
  table.stack th, table.stack td { overflow-wrap: anywhere; }
  @media (max-width: 40rem) {
    table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    table.stack, table.stack tbody, table.stack tr, table.stack th, table.stack td { display: block; width: auto; }
    table.stack tr { border-bottom: 1px solid #8886; padding: .25rem 0; }
    table.stack th[scope=row], table.stack td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .15rem .5rem; }
    table.stack [data-label]::before { content: attr(data-label); font-weight: 600; }
  }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  form.filters { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: end; margin-bottom: 1rem; }
  @media (max-width: 40rem) {
    table, thead, tbody, tr, th, td { display: block; }
    thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    tr { border: 1px solid #8884; border-radius: .25rem; margin: 0 0 .75rem; padding: .25rem .75rem; }
    th, td { border: 0; padding: .25rem 0; }
    tbody [data-label]::before { content: attr(data-label); display: block; font-size: .8125rem; font-weight: 600; }
  }
`;

/** The page shell: phone-width friendly, no CDN; its one script (copy buttons, the template preview as one types) is not needed to use a page. */
export function page(title: string, body: SafeHtml, viewer: Viewer | null = null): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Developer console</title>
        <script src="/assets/console.js" defer></script>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
      </head>
      <body>
        <header>
          <a href="/apps"><strong>Developer console</strong></a>
          ${
            viewer
              ? html`<span>${viewer.email}</span>
                  <form class="inline" method="post" action="${changeAction(`/sign-out`, viewer.csrfToken)}">
                    <button type="submit">Sign out</button>
                  </form>`
              : null
          }
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.value;
}
