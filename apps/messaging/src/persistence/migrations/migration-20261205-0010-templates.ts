import { Migration } from '@mikro-orm/migrations';

/**
 * Message templates (ADR 0222): their read model, kept inline with the template streams (the list,
 * the lookup by id, and a send's lookup by name and language), and the template a message was
 * rendered from. A deleted template's row goes, so the unique name and language hold among live ones.
 */
export class Migration20261205001000MessagingTemplates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table messaging.templates (
      template_id text primary key,
      app_id text not null,
      name text not null,
      language text not null,
      category text not null,
      components jsonb not null,
      variables jsonb not null,
      examples jsonb not null,
      status text not null,
      rejected_reason text,
      version integer not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create unique index templates_app_name_language_idx on messaging.templates (app_id, name, language)`);
    // GET /templates: newest first (ids sort by creation time), optionally one status.
    this.addSql(`create index templates_app_id_idx on messaging.templates (app_id, template_id desc)`);
    this.addSql(`create index templates_app_status_idx on messaging.templates (app_id, status, template_id desc)`);
    this.addSql(`alter table messaging.messages add column template jsonb`);
  }
}
