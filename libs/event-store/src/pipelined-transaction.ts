import type { EntityManager } from '@mikro-orm/postgresql';

/** A statement with `?` placeholders and their values, formatted exactly as `em.execute` formats them. */
export interface Statement {
  sql: string;
  params?: unknown[];
}

export type Row = Record<string, any>;

interface PgResult {
  rows: Row[];
}

interface PgConnection {
  query(text: string): Promise<PgResult | PgResult[]>;
  /** Set on a connection the pool must not hand out again (knex's own mark). */
  __knex__disposed?: unknown;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/**
 * A transaction whose statements go to Postgres several to a round trip, on one connection of the
 * ORM's pool: `begin` rides with the first statements, `commit` with the last. A statement costs
 * the service and Postgres a socket write and read of their own each, which on a busy machine is
 * most of what a short statement costs; a group commit that needs nine statements needs two or
 * three round trips this way. Statements of one round trip must not depend on each other's results
 * in JavaScript (SQL may: each sees the effects of the ones before it). An error anywhere rolls the
 * whole transaction back and is rethrown, as with `em.transactional`.
 */
export class PipelinedTransaction {
  private begun = false;
  private finished = false;

  private constructor(
    private readonly connection: PgConnection,
    private readonly format: (sql: string, params: unknown[]) => string,
  ) {}

  static async run<T>(em: EntityManager, body: (tx: PipelinedTransaction) => Promise<T>): Promise<T> {
    const client = (em.getConnection().getKnex() as unknown as { client: KnexClient }).client;
    const platform = em.getPlatform();
    const connection = await client.acquireConnection();
    const tx = new PipelinedTransaction(connection, (sql, params) => platform.formatQuery(sql, params));
    try {
      const result = await body(tx);
      if (tx.begun && !tx.finished) await tx.commit([]);
      return result;
    } catch (error) {
      // Ends the transaction whatever state the error left it in (a warning only when none is open).
      if (tx.begun) await connection.query('rollback').catch((rollbackError: unknown) => (connection.__knex__disposed = rollbackError));
      throw error;
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** Runs the statements in one round trip (the first also begins the transaction); the rows of each, in order. */
  query(statements: Statement[]): Promise<Row[][]> {
    return this.send(statements, false);
  }

  /** Runs the statements and commits, in one round trip; the rows of each, in order. */
  commit(statements: Statement[]): Promise<Row[][]> {
    return this.send(statements, true);
  }

  private async send(statements: Statement[], commit: boolean): Promise<Row[][]> {
    if (this.finished) throw new Error('The transaction is already committed.');
    if (statements.length === 0 && !commit) return [];
    const parts = statements.map(({ sql, params }) => this.format(sql, params ?? []));
    const lead = this.begun ? 0 : 1;
    if (!this.begun) parts.unshift('begin');
    if (commit) parts.push('commit');
    this.begun = true;
    if (commit) this.finished = true;
    if (parts.length === 0) return [];
    const result = await this.connection.query(parts.join(';\n'));
    const results = Array.isArray(result) ? result : [result];
    return statements.map((_, i) => results[lead + i].rows);
  }
}
