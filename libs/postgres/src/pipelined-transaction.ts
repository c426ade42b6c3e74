import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResult } from 'pg';
import { preparedForm, queryPrepared, type RoundTripPart } from './prepared-statements';
import { quoteText } from './sql-literal';

/** A statement with `?` placeholders and their values, formatted exactly as `em.execute` formats them. */
export interface Statement {
  sql: string;
  params?: unknown[];
}

export type Row = Record<string, any>;

/** Runs one statement with `em.execute` (inside em's transaction, if it has one); its rows. */
export function runStatement<R extends object = Row>(em: EntityManager, { sql, params }: Statement): Promise<R[]> {
  return em.execute<R[]>(sql, params);
}

interface PgConnection {
  query(text: string): Promise<QueryResult>;
  /** Set on a connection the pool must not hand out again (knex's own mark). */
  __knex__disposed?: unknown;
}

interface SqlPlatform {
  formatQuery(sql: string, params: unknown[]): string;
  quoteValue(value: unknown): string;
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
 *
 * Statements are prepared on their connection the first time it runs them and executed by name
 * after that (PreparedStatements), so Postgres parses and plans each kind of statement once per
 * connection instead of every time.
 */
export class PipelinedTransaction {
  private begun = false;
  private finished = false;
  private readonly onCommitted: (() => void)[] = [];

  private constructor(
    private readonly connection: PgConnection,
    private readonly platform: SqlPlatform,
  ) {}

  static async run<T>(em: EntityManager, body: (tx: PipelinedTransaction) => Promise<T>): Promise<T> {
    return PipelinedTransaction.onConnection(em, async (tx, connection) => {
      try {
        const result = await body(tx);
        if (tx.begun && !tx.finished) await tx.commit([]);
        return result;
      } catch (error) {
        // Ends the transaction whatever state the error left it in (a warning only when none is open).
        if (tx.begun) await connection.query('rollback').catch((rollbackError: unknown) => (connection.__knex__disposed = rollbackError));
        throw error;
      }
    });
  }

  /**
   * Runs one statement outside any transaction block, prepared as in a transaction: for a service's
   * hot single statements, which `em.execute` would send as text to be parsed and planned each time.
   */
  static execute(em: EntityManager, statement: Statement): Promise<Row[]> {
    return PipelinedTransaction.onConnection(em, async (tx) => {
      // Without `begin`, the round trip is Postgres' implicit transaction of one simple query.
      tx.begun = true;
      return (await tx.send([statement], false))[0];
    });
  }

  private static async onConnection<T>(em: EntityManager, body: (tx: PipelinedTransaction, connection: PgConnection) => Promise<T>): Promise<T> {
    // knex types its client `any`: the two calls this needs, typed.
    const client: KnexClient = em.getConnection().getKnex().client;
    const connection = await client.acquireConnection();
    try {
      return await body(new PipelinedTransaction(connection, em.getPlatform()), connection);
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

  /**
   * Runs `hook` once this transaction has committed, before the commit's caller goes on; never if it
   * rolls back. For work that must only see committed rows (waking this process's outbox relay).
   * A hook must not throw: the transaction is committed by then.
   */
  afterCommit(hook: () => void): void {
    if (this.finished) throw new Error('The transaction is already committed.');
    this.onCommitted.push(hook);
  }

  private async send(statements: Statement[], commit: boolean): Promise<Row[][]> {
    if (this.finished) throw new Error('The transaction is already committed.');
    if (statements.length === 0 && !commit) return [];
    const parts: RoundTripPart[] = this.begun ? [] : ['begin'];
    const first = parts.length;
    for (const { sql, params } of statements) parts.push(preparedForm(sql, params ?? []) ?? this.platform.formatQuery(sql, params ?? []));
    if (commit) parts.push('commit');
    this.begun = true;
    if (commit) this.finished = true;
    if (parts.length === 0) return [];
    const rows = await queryPrepared(this.connection, parts, (value) => (typeof value === 'string' ? quoteText(value) : this.platform.quoteValue(value)));
    if (commit) for (const hook of this.onCommitted.splice(0)) hook();
    return rows.slice(first, first + statements.length);
  }
}
