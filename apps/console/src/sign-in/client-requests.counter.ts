import type { EntityManager } from '@mikro-orm/postgresql';
import { windowOverIfStartedBy } from './sign-in-client-limit.rule';

/**
 * Counts one sign-in request of `client` and returns how many its current window holds, this one
 * included, in one statement: the upsert takes the client's row lock, so requests at once are
 * counted one after the other (a read then a write let all of them read the old count). A window
 * that is over starts again at this request.
 */
export async function countClientRequest(em: EntityManager, client: string, now: Date): Promise<number> {
  const over = windowOverIfStartedBy(now);
  const [{ requests }] = await em.execute<{ requests: number }[]>(
    `insert into console.sign_in_clients as c (client, window_started_at, requests) values (?, ?, 1)
     on conflict (client) do update set
       requests = case when c.window_started_at > ? then c.requests + 1 else 1 end,
       window_started_at = case when c.window_started_at > ? then c.window_started_at else excluded.window_started_at end
     returning requests`,
    [client, now, over, over],
  );
  return Number(requests);
}
