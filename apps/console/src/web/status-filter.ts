import { html, type SafeHtml } from './html';

/** A GET form that filters a list by status ("any" or one of `statuses`), keeping `hidden` fields as they are. */
export function statusFilter(options: {
  action: string;
  id: string;
  statuses: readonly string[];
  current: string | null;
  hidden?: Record<string, string | null>;
}): SafeHtml {
  const hidden = Object.entries(options.hidden ?? {}).filter((entry): entry is [string, string] => entry[1] !== null);
  return html`<form method="get" action="${options.action}">
    <label for="${options.id}">Status</label>
    <select id="${options.id}" name="status">
      <option value="">any</option>
      ${options.statuses.map((s) => html`<option value="${s}" ${s === options.current ? html`selected` : null}>${s}</option>`)}
    </select>
    ${hidden.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit">Filter</button>
  </form>`;
}
