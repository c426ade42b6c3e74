import type { KafkaMessage } from 'kafkajs';
import { EVENT_HEADERS } from '#platform/contracts';
import { parseEventMessage, type EventHandler } from './event-message.parser';

const handled: EventHandler = () => Promise.resolve();
const handlers = { OrgCreated: handled };
const event = (type: string) => ({
  eventId: 'e1',
  type,
  schemaVersion: 1,
  occurredAt: '2026-11-01T00:00:00Z',
  appId: null,
  correlationId: null,
  causationId: null,
  streamId: 'org-1',
  streamVersion: 1,
  data: { orgId: 'org_1', name: 'Acme', allowsExternalBusinesses: true },
});
const message = (value: string, headers: Record<string, string> = {}): KafkaMessage =>
  ({ key: Buffer.from('k'), value: Buffer.from(value), headers, offset: '0', timestamp: '0', attributes: 0 }) as unknown as KafkaMessage;

describe('parseEventMessage', () => {
  it('applies a valid event of a handled type', () =>
    expect(parseEventMessage(message(JSON.stringify(event('OrgCreated')), { [EVENT_HEADERS.type]: 'OrgCreated' }), handlers).kind).toBe('apply'));
  it('skips a type it does not handle by the type header, without reading the value', () => {
    const parsed = parseEventMessage(message('not even JSON', { [EVENT_HEADERS.type]: 'MessageAccepted' }), handlers);
    expect(parsed.kind).toBe('skip');
  });
  it('without a type header, reads the type from the value', () => {
    expect(parseEventMessage(message(JSON.stringify(event('MessageAccepted'))), handlers).kind).toBe('skip');
    expect(parseEventMessage(message(JSON.stringify(event('OrgCreated'))), handlers).kind).toBe('apply');
  });
  it('dead-letters what it cannot read when the type is handled or unknown', () => {
    expect(parseEventMessage(message('not JSON'), handlers).kind).toBe('dead');
    expect(parseEventMessage(message('not JSON', { [EVENT_HEADERS.type]: 'OrgCreated' }), handlers).kind).toBe('dead');
  });
  it('does not take an Object.prototype member in the header for a handler', () =>
    expect(parseEventMessage(message('{}', { [EVENT_HEADERS.type]: 'constructor' }), handlers).kind).toBe('skip'));
});
