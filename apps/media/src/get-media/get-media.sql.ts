import type { Statement } from '#platform/postgres';

/** The statements of GetMediaHandler (the media row itself: findMedia). */

/** The media's events, in stream order, as EventRef rows. */
export function mediaEventsStatement(mediaId: string): Statement {
  return { sql: `select event_id as "eventId", type from media.events where stream_id = ? order by stream_version`, params: [`media-${mediaId}`] };
}
