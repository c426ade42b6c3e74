import { API_VERSION, type DomainEvent } from '#platform/contracts';
import { keptForEventsApi, publicEventId, toPublicEvent } from './public-event.mapper';

const domain = (type: string, data: unknown, over: Partial<DomainEvent> = {}): DomainEvent => ({
  eventId: '0193c0de-0000-7000-8000-000000000001',
  type,
  schemaVersion: 1,
  occurredAt: '2026-05-01T12:00:00.250Z',
  appId: 'app_1',
  correlationId: 'req_1',
  causationId: 'req_1',
  streamId: 's-1',
  streamVersion: 1,
  data,
  ...over,
});
const status = (over: Record<string, unknown> = {}) => ({ messageId: 'msg_1', appUserId: 'u_1', clientReference: null, ...over });

describe('public event mapping', () => {
  it('the envelope has exactly the spec fields, in order, and the payload is its JSON', () => {
    const mapped = toPublicEvent(domain('MessageSent', status()));
    expect(Object.keys(mapped!.envelope)).toEqual(['id', 'type', 'apiVersion', 'created', 'appId', 'data']);
    expect(mapped!.envelope).toMatchObject({
      type: 'message.status',
      apiVersion: API_VERSION,
      created: Math.floor(Date.parse('2026-05-01T12:00:00.250Z') / 1000),
      appId: 'app_1',
    });
    expect(mapped!.payload).toBe(JSON.stringify(mapped!.envelope));
  });

  it('the evt_ id is derived from the domain event: the same on every replay, different for another event', () => {
    const a = toPublicEvent(domain('MessageSent', status()))!.envelope.id;
    expect(a).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(toPublicEvent(domain('MessageSent', status()))!.envelope.id).toBe(a);
    expect(publicEventId({ eventId: '0193c0de-0000-7000-8000-000000000002', occurredAt: '2026-05-01T12:00:00.250Z' })).not.toBe(a);
  });

  it.each([
    ['MessageSent', 'sent'],
    ['MessageDelivered', 'delivered'],
    ['MessageRead', 'read'],
  ])('%s → message.status %s, without clientReference when none was given', (type, expected) => {
    expect(toPublicEvent(domain(type, status()))!.envelope.data).toEqual({
      id: 'msg_1',
      appUserId: 'u_1',
      status: expected,
      timestamp: '2026-05-01T12:00:00.250Z',
    });
  });

  it('a send handed over at once (one MessageSent carrying its acceptance, D3) → the same message.status sent, nothing of the acceptance', () => {
    const acceptance = { userId: 'usr_1', type: 'image', text: 'Look', businessInitiated: false };
    const media = [{ id: 'med_1', mimeType: 'image/png', fileName: 'a.png', size: 10, objectKey: 'app_1/med_1' }];
    const mapped = toPublicEvent(domain('MessageSent', status({ clientReference: 'order-7', ...acceptance, media })))!;
    expect(mapped.envelope.data).toEqual({ id: 'msg_1', appUserId: 'u_1', status: 'sent', timestamp: '2026-05-01T12:00:00.250Z', clientReference: 'order-7' });
    expect(mapped.payload).toBe(toPublicEvent(domain('MessageSent', status({ clientReference: 'order-7' })))!.payload);
  });

  it('message.status echoes clientReference and carries the failure reason', () => {
    expect(toPublicEvent(domain('MessageFailed', status({ clientReference: 'order-7', reason: 'consent_revoked' })))!.envelope.data).toEqual({
      id: 'msg_1',
      appUserId: 'u_1',
      status: 'failed',
      timestamp: '2026-05-01T12:00:00.250Z',
      clientReference: 'order-7',
      reason: 'consent_revoked',
    });
  });

  it('message.received lists the files without their object keys, with context for a reply, and waits for the files', () => {
    const mapped = toPublicEvent(
      domain('MessageReceived', {
        messageId: 'msg_9',
        appUserId: 'u_1',
        userId: 'usr_1',
        type: 'image',
        text: 'look',
        media: [{ id: 'med_1', mimeType: 'image/png', fileName: 'a.png', size: 10, objectKey: 'inbound/x' }],
        replyTo: 'msg_1',
      }),
    )!;
    expect(mapped.envelope.data).toEqual({
      id: 'msg_9',
      from: 'u_1',
      type: 'image',
      text: 'look',
      media: [{ id: 'med_1', mimeType: 'image/png', fileName: 'a.png', size: 10 }],
      context: { messageId: 'msg_1' },
      timestamp: '2026-05-01T12:00:00.250Z',
    });
    expect(mapped.requiresMedia).toEqual(['med_1']);
  });

  it('message.received of a plain text has no context and text may be null', () => {
    const data = toPublicEvent(
      domain('MessageReceived', { messageId: 'msg_9', appUserId: 'u_1', userId: 'usr_1', type: 'text', text: null, media: [], replyTo: null }),
    )!.envelope.data;
    expect(data).toEqual({ id: 'msg_9', from: 'u_1', type: 'text', text: null, media: [], timestamp: '2026-05-01T12:00:00.250Z' });
  });

  it('consent.updated: source and ref with an opt-in, reason when the account is gone', () => {
    const consent = (over: Record<string, unknown>) => ({
      appUserId: 'u_1',
      userId: 'usr_1',
      status: 'opted_in',
      previousStatus: null,
      source: 'opt_in_link',
      ref: 'spring',
      reason: null,
      optedInAt: '2026-05-01T12:00:00.250Z',
      optedOutAt: null,
      ...over,
    });
    expect(toPublicEvent(domain('ConsentUpdated', consent({})))!.envelope.data).toEqual({
      appUserId: 'u_1',
      status: 'opted_in',
      source: 'opt_in_link',
      ref: 'spring',
    });
    expect(toPublicEvent(domain('ConsentUpdated', consent({ status: 'opted_out', reason: 'account_deleted' })))!.envelope.data).toEqual({
      appUserId: 'u_1',
      status: 'opted_out',
      reason: 'account_deleted',
    });
    expect(toPublicEvent(domain('ConsentUpdated', consent({ status: 'blocked', ref: null })))!.envelope.data).toEqual({ appUserId: 'u_1', status: 'blocked' });
  });

  it('app.status_changed carries status, previousStatus and the reason when given', () => {
    expect(
      toPublicEvent(domain('AppStatusChanged', { appId: 'app_1', status: 'suspended', previousStatus: 'public_live', reason: 'spam' }))!.envelope.data,
    ).toEqual({
      status: 'suspended',
      previousStatus: 'public_live',
      reason: 'spam',
    });
    expect(
      toPublicEvent(domain('AppStatusChanged', { appId: 'app_1', status: 'internal_live', previousStatus: 'sandbox', reason: null }))!.envelope.data,
    ).toEqual({
      status: 'internal_live',
      previousStatus: 'sandbox',
    });
  });

  it('events that are not public, and app-less events, map to nothing', () => {
    expect(toPublicEvent(domain('MessageAccepted', {}))).toBeNull();
    expect(toPublicEvent(domain('TesterInvited', {}))).toBeNull();
    expect(toPublicEvent(domain('MessageSent', status(), { appId: null }))).toBeNull();
  });
});

describe('events kept for the events API (ADR 0223)', () => {
  const occurredAt = '2026-05-01T12:00:00.000Z';
  const after = (ms: number) => new Date(Date.parse(occurredAt) + ms);
  const DAY = 24 * 3600 * 1000;

  it('keeps an event for 30 days after it happened, and not a moment longer', () => {
    expect(keptForEventsApi(occurredAt, after(0))).toBe(true);
    expect(keptForEventsApi(occurredAt, after(30 * DAY))).toBe(true);
    expect(keptForEventsApi(occurredAt, after(30 * DAY + 1))).toBe(false);
  });
});
