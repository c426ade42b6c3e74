/**
 * Server-Sent Events frames (WHATWG HTML, "Server-sent events"). A field value cannot hold a line
 * break, so data of several lines becomes several `data:` lines, which a reader joins with "\n";
 * event bodies are JSON on one line, so they travel byte for byte.
 */
export function sseEvent(frame: { id?: string; event?: string; data: string }): string {
  for (const [name, value] of [
    ['id', frame.id],
    ['event', frame.event],
  ] as const) {
    if (value !== undefined && /[\r\n\0]/.test(value)) throw new Error(`SSE ${name} must be one line without NUL`);
  }
  const lines: string[] = [];
  if (frame.id !== undefined) lines.push(`id: ${frame.id}`);
  if (frame.event !== undefined) lines.push(`event: ${frame.event}`);
  for (const line of frame.data.split(/\r\n|\r|\n/)) lines.push(`data: ${line}`);
  return lines.join('\n') + '\n\n';
}

/** A comment line: readers ignore it; it keeps proxies and the client's idle timers from closing the stream. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** How long a reader waits before reconnecting (the stream's `retry:` field). */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}
