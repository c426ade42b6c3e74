import { Migration } from '@mikro-orm/migrations';

export class Migration20261127000200ConsoleSignIn extends Migration {
  override async up(): Promise<void> {
    // Which person a link belongs to (links are named by the hash of their token only).
    this.addSql(`create table console.sign_in_links (
      token_hash text primary key,
      email text not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`);
    // Sign-in requests per client address, for the per-client limit (kept for the window, then pruned).
    this.addSql(`create table console.sign_in_requests (
      client text not null,
      at timestamptz not null
    )`);
    this.addSql(`create index sign_in_requests_by_client on console.sign_in_requests (client, at)`);
    this.addSql(`create table console.sessions (
      session_hash text primary key,
      email text not null,
      csrf_token text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null
    )`);
    this.addSql(`create index sessions_by_expiry on console.sessions (expires_at)`);
  }
}
