/**
 * A Server-Sent Events parser (WHATWG HTML, "Server-sent events"): feed it the stream's text as it
 * arrives, in chunks cut anywhere; it returns the events each chunk completed. Lines end with LF,
 * CRLF or CR; a blank line dispatches; `data` lines join with "\n"; comments (`:`) are skipped;
 * `id` is remembered across events as the last event id, as a browser's EventSource does.
 */
export class SseReader {
  constructor() {
    this.buffer = '';
    this.pendingCr = false;
    this.lastEventId = '';
    this.retryMs = null;
    this.reset();
  }

  reset() {
    this.data = [];
    this.type = '';
    this.hasData = false;
  }

  /** @returns {{ id: string, event: string, data: string }[]} the events completed by this chunk */
  push(text) {
    const events = [];
    if (text === '') return events;
    let input = text;
    // A CR at the end of the last chunk and an LF at the start of this one are one line end.
    if (this.pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.pendingCr = false;
    this.buffer += input;
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    let match;
    while ((match = lineEnd.exec(this.buffer)) !== null) {
      const event = this.line(this.buffer.slice(start, match.index));
      if (event) events.push(event);
      start = match.index + match[0].length;
      // A CR ending the chunk may be the first half of a CRLF: the next chunk's LF is skipped.
      if (match[0] === '\r' && start === this.buffer.length) this.pendingCr = true;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  line(line) {
    if (line === '') {
      if (!this.hasData) {
        this.reset();
        return null;
      }
      const event = { id: this.lastEventId, event: this.type || 'message', data: this.data.join('\n') };
      this.reset();
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'event') this.type = value;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }
}
