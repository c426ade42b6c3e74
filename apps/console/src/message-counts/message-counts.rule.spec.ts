import { countedStatus } from './message-counts.rule';

const at = (type: string, occurredAt = '2026-12-05T23:59:59.999Z', appId: string | null = 'app_1') => ({ type, appId, occurredAt });

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
