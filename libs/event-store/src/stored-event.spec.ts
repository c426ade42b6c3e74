import type { DomainEvent } from '#platform/contracts';
import { storedEventGuard } from './stored-event';

type LampEvent = { type: 'LampOn'; data: { watts: number } } | { type: 'LampOff'; data: { reason: string } };
const isLampEvent = storedEventGuard<LampEvent>({ LampOn: true, LampOff: true });
const stored = (type: string, data: unknown): DomainEvent => ({
  eventId: '0190f0e0-0000-7000-8000-000000000000',
  type,
  schemaVersion: 1,
  occurredAt: '2026-11-27T08:00:00.000Z',
  appId: null,
  correlationId: null,
  causationId: null,
  streamId: 'lamp-1',
  streamVersion: 1,
  data,
});

describe('storedEventGuard', () => {
  it("narrows a stored event of the aggregate's types to its data", () => {
    const event = stored('LampOn', { watts: 40 });
    expect(isLampEvent(event)).toBe(true);
    if (isLampEvent(event) && event.type === 'LampOn') expect(event.data.watts).toBe(40);
  });

  it('refuses other types, including names Object.prototype has', () => {
    for (const type of ['LampBroken', 'constructor', 'toString', '__proto__']) expect(isLampEvent(stored(type, {}))).toBe(false);
  });
});
