import type { RebuildEvent } from '#platform/event-store';
import { applyMessageEvent, type MessageRow } from './message.rebuild';

const status = { messageId: 'msg_1', appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA', clientReference: 'order-1' };
const acceptance = { ...status, userId: 'usr_1', type: 'image', text: 'Look', businessInitiated: true };
const listed = { id: 'med_1', mimeType: 'image/png', fileName: 'a.png', size: 10 };
const at = (streamVersion: number, type: string, data: Record<string, unknown>, occurredAt = '2026-11-01 10:00:00+00'): RebuildEvent =>
  ({
    position: String(streamVersion),
    streamId: 'message-msg_1',
    streamVersion,
    eventId: `e${streamVersion}`,
    type,
    data,
    appId: 'app_1',
    occurredAt,
    utcDay: '2026-11-01',
  }) as RebuildEvent;
const fold = (events: RebuildEvent[]) => events.reduce<MessageRow | undefined>(applyMessageEvent, undefined);

describe('message rows rebuilt (D3): one event per send, or two in streams written before', () => {
  const idempotency = { key: 'key-1', bodyHash: 'hash-1' };
  const oneEvent = [at(1, 'MessageSent', { ...acceptance, media: [{ ...listed, objectKey: 'app_1/med_1' }], idempotency })];
  /** Streams written before one event per send carry no Idempotency-Key. */
  const keyless = { idempotency_key: null, body_hash: null };
  const twoEvents = [at(1, 'MessageAccepted', { ...acceptance, media: [listed] }), at(2, 'MessageSent', status)];

  it('MessageSent alone opens the row sent, its files without their objects', () =>
    expect(fold(oneEvent)).toEqual({
      message_id: 'msg_1',
      app_id: 'app_1',
      direction: 'outbound',
      app_user_id: status.appUserId,
      user_id: 'usr_1',
      type: 'image',
      text: 'Look',
      media: JSON.stringify([listed]),
      status: 'sent',
      client_reference: 'order-1',
      business_initiated: true,
      failure_reason: null,
      created_at: '2026-11-01 10:00:00+00',
      delivered_at: null,
      read_at: null,
      failed_at: null,
      version: 1,
      template: null,
      idempotency_key: 'key-1',
      body_hash: 'hash-1',
    }));
  it('a template message keeps the template version it was rendered from', () => {
    const ref = { id: 'tpl_1', name: 'order_shipped', language: 'en', version: 2 };
    const row = fold([at(1, 'MessageSent', { ...acceptance, type: 'template', text: 'Hi Ann', media: [], template: ref })]);
    expect(row).toMatchObject({ type: 'template', text: 'Hi Ann', template: JSON.stringify(ref) });
  });
  it('MessageAccepted then MessageSent gives the same row, at its own stream version', () =>
    expect(fold(twoEvents)).toEqual({ ...fold(oneEvent), ...keyless, version: 2 }));
  it('MessageAccepted alone (not handed over yet) is accepted', () => expect(fold(twoEvents.slice(0, 1))?.status).toBe('accepted'));
  it('a receipt after either moves the row alike', () => {
    const read = (v: number) => at(v, 'MessageRead', status, '2026-11-01 10:01:00+00');
    expect(fold([...twoEvents, read(3)])).toEqual({ ...fold([...oneEvent, read(2)]), ...keyless, version: 3 });
  });
});
