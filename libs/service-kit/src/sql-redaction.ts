/**
 * MikroORM and knex put the failed statement, its parameters inlined, in front of a database error's
 * message (`<sql> - <postgres message>`), and Postgres repeats values in its own message and detail
 * (`invalid input syntax …: "value"`, `Key (id)=(value) already exists`). A log line must never carry
 * them (they may be secrets or personal data): the statement goes, and so do quoted values and key
 * details of a message that had one. Text without a statement is left exactly as it was.
 */
const STATEMENT = /(^|\n|(?:Exception|Error): )[ \t]*(?:select|insert|update|delete|with|alter|create|drop|truncate|lock|call|copy)\b[\s\S]*? - /gi;

export function redactSql(text: string): string {
  const redacted = text.replace(STATEMENT, (_match, lead: string) => `${lead}[sql redacted] - `);
  if (redacted === text) return text;
  return redacted
    .split('\n')
    .map((line) => (/^\s+at /.test(line) ? line : line.replace(/"[^"\n]*"/g, '"…"').replace(/\)=\(.*\)/g, ')=(…)')))
    .join('\n');
}

/** Every string value of a log line's fields, redacted (one level deep: fields are flat by convention). */
export function redactSqlInFields(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(fields)) {
    const text = typeof value === 'string' ? value : value instanceof Error ? String(value.stack ?? value) : null;
    if (text === null) continue;
    const redacted = redactSql(text);
    if (redacted === value) continue;
    copy ??= { ...fields };
    copy[key] = redacted;
  }
  return copy ?? fields;
}
