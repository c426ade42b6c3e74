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

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; }
  header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; padding: .75rem 1rem; border-bottom: 1px solid #8884; }
  main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input[type=email], input[type=text], textarea { width: 100%; max-width: 24rem; padding: .5rem; font: inherit; box-sizing: border-box; }
  button { font: inherit; padding: .5rem 1rem; margin-top: .75rem; cursor: pointer; }
  table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
  th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #8883; }
  .notice { padding: .75rem 1rem; border-radius: .25rem; background: #8882; }
  form.inline { display: inline; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; padding: .75rem; background: #8881; }
  form.filters { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: end; margin-bottom: 1rem; }
  /* A table of many columns: the page widens for it, long ids wrap rather than scroll, and at phone width each row stacks into labelled lines. */
  main:has(table.stack) { max-width: 80rem; }
  table.stack { display: table; table-layout: fixed; }
  table.stack td { overflow-wrap: anywhere; vertical-align: top; }
  @media (max-width: 40rem) {
    table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
    table.stack tr { padding: .5rem 0; border-bottom: 1px solid #8884; }
    table.stack td { border: 0; padding: .1rem .5rem; }
    table.stack td::before { content: attr(data-label) ": "; font-weight: 600; }
  }
`;

/** The page shell: phone-width friendly, no CDN; its one script (copy buttons) is not needed to use a page. */
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
