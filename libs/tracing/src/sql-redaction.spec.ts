import { redactSqlLiterals } from './sql-redaction';

describe('redactSqlLiterals', () => {
  it('replaces string literals, escaped quotes included, and numbers', () => {
    expect(redactSqlLiterals(`update c set secret = 'whsec_abc', token = 'it''s' where id = 'we_1' and n > 42 and x = -1.5e3`)).toBe(
      'update c set secret = ?, token = ? where id = ? and n > ? and x = ?',
    );
  });

  it('replaces dollar-quoted and E-strings', () => {
    expect(redactSqlLiterals(`select $$a 'b'$$, $t$c$t$, E'd\\'e'`)).not.toMatch(/[abcde]'|\$\$a/);
  });

  it('keeps names, placeholders and casts', () => {
    expect(redactSqlLiterals('select t1.a, $1::int8 from s.t1 where b = $2')).toBe('select t1.a, $1::int8 from s.t1 where b = $2');
  });
});
