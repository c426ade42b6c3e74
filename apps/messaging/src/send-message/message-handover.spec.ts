import { derivedUuidv7, type DomainEvent } from '#platform/contracts';
import { validateDomainEvent } from '#platform/kafka';
import { handoverOf } from './message-handover';

const status = { messageId: 'msg_1', appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA', clientReference: 'order-1' };
const file = { id: 'med_1', mimeType: 'image/png', fileName: 'a.png', size: 10, objectKey: 'app_1/med_1' };
/** D3: a send handed over at once, one MessageSent carrying what acceptance carries. */
const sent: DomainEvent = {
  eventId: '019a0000-0000-7000-8000-000000000001',
  type: 'MessageSent',
  schemaVersion: 1,
  occurredAt: '2026-11-01T10:00:00.000Z',
  appId: 'app_1',
  correlationId: 'req_1',
  causationId: 'req_1',
  streamId: 'message-msg_1',
  streamVersion: 1,
  data: { ...status, userId: 'usr_1', type: 'image', text: 'Look', media: [file], businessInitiated: false },
};

describe('handoverOf (D3)', () => {
  it('derives the handover to chat.outbound from the MessageSent alone', () => {
    expect(handoverOf(sent)).toEqual({
      ...sent,
      eventId: derivedUuidv7(Date.parse(sent.occurredAt), `${sent.eventId}:handover`),
      type: 'MessageHandedOver',
      causationId: sent.eventId,
      data: {
        messageId: 'msg_1',
        appId: 'app_1',
        userId: 'usr_1',
        appUserId: status.appUserId,
        type: 'image',
        text: 'Look',
        media: [{ mediaId: 'med_1', objectKey: 'app_1/med_1', fileName: 'a.png', mimeType: 'image/png', size: 10 }],
      },
    });
  });
  it('is the same handover every time (a publication repeated mints nothing new)', () => expect(handoverOf(sent)).toEqual(handoverOf(sent)));
  it('the handover it derives passes its schema', () => expect(validateDomainEvent(handoverOf(sent))).toBeNull());
  it('refuses a MessageSent that carries the status data alone (streams written before)', () =>
    expect(() => handoverOf({ ...sent, streamVersion: 2, data: status })).toThrow(/does not carry a send/));
});

describe("MessageSent's schema (D3)", () => {
  it('takes a send handed over at once', () => expect(validateDomainEvent(sent)).toBeNull());
  it('takes the status data alone, as streams written before hold it after MessageAccepted', () =>
    expect(validateDomainEvent({ ...sent, streamVersion: 2, data: status })).toBeNull());
  it('refuses an acceptance with a part missing', () => {
    const { businessInitiated: _gone, ...partial } = sent.data as Record<string, unknown>;
    expect(validateDomainEvent({ ...sent, data: partial })).not.toBeNull();
  });
  it('refuses a file without its object', () => {
    const { objectKey: _gone, ...listed } = file;
    expect(validateDomainEvent({ ...sent, data: { ...(sent.data as object), media: [listed] } })).not.toBeNull();
  });
});
