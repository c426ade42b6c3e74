import { countedStatus, dayCounts, utcDayOf } from './message-counts.rule';

const at = (type: string, occurredAt = '2026-12-05T23:59:59.999Z', appId: string | null = 'app_1') => ({ type, appId, day: utcDayOf(occurredAt) });

describe('messages per UTC day by status', () => {
  it('counts a message in each status it reached, on the UTC day of the event that moved it there', () => {
    expect(countedStatus(at('MessageSent'))).toEqual({ appId: 'app_1', day: '2026-12-05', status: 'sent' });
    expect(countedStatus(at('MessageDelivered', '2026-12-06T00:00:00.000Z'))).toEqual({ appId: 'app_1', day: '2026-12-06', status: 'delivered' });
    expect(countedStatus(at('MessageRead'))).toMatchObject({ status: 'read' });
    expect(countedStatus(at('MessageFailed'))).toMatchObject({ status: 'failed' });
    // A time with an offset is still read as its UTC day
    expect(countedStatus(at('MessageSent', '2026-12-06T01:30:00+02:00'))).toMatchObject({ day: '2026-12-05' });
  });

  it('counts neither an acceptance without handover, nor a user message, nor an event of no app', () => {
    expect(countedStatus(at('MessageAccepted'))).toBeNull();
    expect(countedStatus(at('MessageReceived'))).toBeNull();
    expect(countedStatus(at('MessageSent', '2026-12-05T10:00:00Z', null))).toBeNull();
  });
});

describe('a slice of events summed per app and day', () => {
  it('adds each counted event to its app and UTC day once, leaves out what is not counted, and sorts by app and day', () => {
    const rows = dayCounts([
      at('MessageSent', '2026-12-06T10:00:00Z', 'app_2'),
      at('MessageSent', '2026-12-05T10:00:00Z'),
      at('MessageSent', '2026-12-05T11:00:00Z'),
      at('MessageRead', '2026-12-05T12:00:00Z'),
      at('MessageDelivered', '2026-12-04T23:00:00Z'),
      at('MessageAccepted', '2026-12-05T10:00:00Z'),
      at('MessageFailed', '2026-12-05T10:00:00Z', 'app_2'),
    ]);
    expect(rows).toEqual([
      { appId: 'app_1', day: '2026-12-04', sent: 0, delivered: 1, read: 0, failed: 0 },
      { appId: 'app_1', day: '2026-12-05', sent: 2, delivered: 0, read: 1, failed: 0 },
      { appId: 'app_2', day: '2026-12-05', sent: 0, delivered: 0, read: 0, failed: 1 },
      { appId: 'app_2', day: '2026-12-06', sent: 1, delivered: 0, read: 0, failed: 0 },
    ]);
    expect(dayCounts([at('MessageReceived')])).toEqual([]);
  });
});
