/**
 * A statement as a span may show it: every literal replaced by `?`. MikroORM inlines parameter values
 * into the SQL it sends, so the text would otherwise carry ids, message texts and, for endpoint
 * credentials, signing secrets and verify tokens.
 */
export function redactSqlLiterals(sql: string): string {
  return (
    sql
      // E'text' (backslash escapes), 'text' (doubled quotes inside), $tag$text$tag$ and $$text$$
      .replace(/\b[eE]'(?:[^'\\]|\\[\s\S]|'')*'/g, '?')
      .replace(/'(?:[^']|'')*'/g, '?')
      .replace(/\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g, '?')
      // numbers that stand alone (not part of a name such as t1 or $1)
      .replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/g, '?')
  );
}
