import { Migration } from '@mikro-orm/migrations';

export class Migration20261204000700ConsoleSignInQueue extends Migration {
  override async up(): Promise<void> {
    // Sign-in requests per client in its current 15-minute window: one row per client, counted by a
    // single upsert (two requests at once cannot both read the old count).
    this.addSql(`create table console.sign_in_clients (
      client text primary key,
      window_started_at timestamptz not null,
      requests integer not null
    )`);
    this.addSql(`create index sign_in_clients_by_window on console.sign_in_clients (window_started_at)`);
    // Sign-in requests admitted and not yet decided: the same row whoever asked; the decision (a link
    // for a member, nothing for anyone else) is taken after the answer (SignInRequestsWorker).
    this.addSql(`create table console.sign_in_queue (
      request_id bigint generated always as identity primary key,
      email text not null,
      requested_at timestamptz not null
    )`);
    // console.sign_in_requests stays while replicas of the previous image still write it (migrations
    // only add while pods roll); the pruner keeps emptying it, a later migration drops it.
  }
}
