import { redactSql, redactSqlInFields } from './sql-redaction';

describe('redactSql', () => {
  it('drops the SQL that MikroORM and knex put in front of a database error, with its inlined parameters', () => {
    const message = `select 'whsec_SECRETVALUE'::int as x - invalid input syntax for type integer: "whsec_SECRETVALUE"`;
    const stack = `DriverException: ${message}\n    at PostgreSqlExceptionConverter.convertException (/app/node_modules/x.js:1:1)`;
    for (const text of [message, stack]) {
      const redacted = redactSql(text);
      expect(redacted).not.toContain('SECRETVALUE');
      expect(redacted).toContain('invalid input syntax for type integer');
    }
    expect(redactSql(stack)).toContain('at PostgreSqlExceptionConverter.convertException');
  });

  it('drops values of multi-line statements and of unique-violation details', () => {
    const text = `insert into webhook_dispatcher.endpoint_credentials (endpoint_id, verify_token, secret)\n  values ('we_1', 'tok-123', 'whsec_abc') - duplicate key value violates unique constraint "endpoint_credentials_pkey"\nKey (endpoint_id)=(we_1) already exists.`;
    const redacted = redactSql(text);
    for (const value of ['tok-123', 'whsec_abc', '(we_1)']) expect(redacted).not.toContain(value);
    expect(redacted).toContain('duplicate key value violates unique constraint');
  });

  it('leaves lines without SQL as they are', () => {
    const text = 'Error: No answer from webhooks (endpoints.create) in time - retry\n    at f (x.js:1:1)';
    expect(redactSql(text)).toBe(text);
  });
});

describe('redactSqlInFields', () => {
  it('redacts string and Error fields and keeps the others', () => {
    const error = new Error(`update t set token = 'tok-9' where id = 'x' - deadlock detected`);
    const fields = redactSqlInFields({ op: 'endpoints.update', error, text: String(error.stack), attempts: 3 });
    expect(JSON.stringify(fields)).not.toContain('tok-9');
    expect(fields).toMatchObject({ op: 'endpoints.update', attempts: 3 });
    expect(String(fields.error)).toContain('deadlock detected');
  });
});
