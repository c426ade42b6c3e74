/** A timestamp column as raw queries (`em.execute`) return it: MikroORM gives strings or Dates. */
export type DbTimestamp = Date | string;

/** The ISO 8601 form the API and events use. */
export function isoTime(value: DbTimestamp): string {
  return new Date(value).toISOString();
}

export function isoTimeOrNull(value: DbTimestamp | null): string | null {
  return value === null ? null : isoTime(value);
}
