import type { ErrorCode } from '#platform/contracts';
import { deciderSpecification } from '#platform/decider/testing';
import { messageDecider, type MessageCommand } from './message.decider';
import type { MessageEvent } from './message.state';
import type { MediaFacts, SendFacts } from './send-rules';
import type { TemplateState } from '../templates/template.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };
const HOUR = 3600 * 1000;
/** `ms` before the commands' now. */
const before = (ms: number) => new Date(metadata.now.getTime() - ms);
/** `n` business-initiated sends inside the 24 h before now. */
const sentWithin24h = (n: number) => Array.from({ length: n }, (_, i) => before((i + 1) * 60_000));
/** The app's accepted sends on the day of now. */
const usage = (accepted: number, day = '2026-11-01') => ({ day, accepted });

const spec = deciderSpecification(messageDecider);
const APP_ORG = 'org_app';
const recipient = { userId: 'usr_1', appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA', orgId: APP_ORG, status: 'active' as const, orgAllowsExternalBusinesses: false };
const facts = (over: Partial<SendFacts> = {}): SendFacts => ({
  keyEnvironment: 'sandbox',
  app: { appId: 'app_1', orgId: APP_ORG, status: 'sandbox', dailyQuota: 10_000 },
  addressedBy: 'appUserId',
  recipient,
  isAcceptedTester: true,
  consent: 'opted_in',
  media: null,
  template: null,
  lastUserMessageAt: before(HOUR),
  businessInitiatedSentAt: [],
  dailyUsage: usage(0),
  ...over,
});
const live = (status: 'internal_live' | 'public_live', over: Partial<SendFacts> = {}) =>
  facts({ keyEnvironment: 'live', app: { appId: 'app_1', orgId: APP_ORG, status, dailyQuota: 10_000 }, isAcceptedTester: false, ...over });
/** The Idempotency-Key a send came with, carried by its MessageSent (ADR 0227). */
const idempotency = { key: 'key-1', bodyHash: 'hash-1' };
const send = (
  f: SendFacts,
  type: 'text' | 'image' | 'video' | 'audio' | 'file' = 'text',
  clientReference: string | null = 'order-1',
  now = metadata.now,
): MessageCommand => ({
  type: 'SendMessage',
  data: { messageId: 'msg_1', type, text: type === 'text' ? 'Hello' : null, media: [], clientReference, idempotency, facts: f },
  metadata: { now },
});
const status = { messageId: 'msg_1', appUserId: recipient.appUserId, clientReference: 'order-1' };
/** D3: a send handed over at once is one event, MessageSent carrying what acceptance carries. */
const sent = (businessInitiated = false, type: 'text' | 'image' | 'file' = 'text'): MessageEvent => ({
  type: 'MessageSent',
  data: { ...status, userId: 'usr_1', type, text: type === 'text' ? 'Hello' : null, media: [], businessInitiated, idempotency },
});
/** A send in a stream written before one event per send: MessageAccepted, then MessageSent with the status data alone. */
const acceptedThenSent = (businessInitiated = false): MessageEvent[] => [
  { type: 'MessageAccepted', data: { ...status, userId: 'usr_1', type: 'text', text: 'Hello', media: [], businessInitiated } },
  { type: 'MessageSent', data: status },
];
const delivered: MessageEvent = { type: 'MessageDelivered', data: status };
const read: MessageEvent = { type: 'MessageRead', data: status };
const failed: MessageEvent = { type: 'MessageFailed', data: { ...status, reason: 'consent_revoked' } };
const media = (over: Partial<Extract<MediaFacts, { found: true }>> = {}): MediaFacts => ({
  found: true,
  kind: 'image',
  status: 'ready',
  mimeType: 'image/png',
  fileName: 'a.png',
  size: 10,
  ...over,
});
const refused = (f: SendFacts, code: ErrorCode, type: 'text' | 'image' | 'video' | 'audio' | 'file' = 'text') =>
  spec.given([]).when(send(f, type)).thenThrows(code);

/** The app's template `order_shipped` in en, at version 2, with the given status. */
const template = (status: 'pending' | 'approved' | 'rejected'): TemplateState => ({
  kind: 'live',
  template: {
    templateId: 'tpl_1',
    appId: 'app_1',
    name: 'order_shipped',
    language: 'en',
    category: 'utility',
    components: { header: { text: 'Order {{order_id}}' }, body: { text: 'Hi {{name}}, it has shipped.' }, footer: { text: 'Reply STOP to stop.' } },
    variables: ['order_id', 'name'],
    examples: { order_id: '1', name: 'Ann' },
    version: 2,
    status,
    rejectedReason: null,
  },
});
const templateSend = (state: TemplateState, variables: Record<string, string>, over: Partial<SendFacts> = {}): MessageCommand => ({
  type: 'SendMessage',
  data: {
    messageId: 'msg_1',
    type: 'template',
    text: null,
    media: [],
    clientReference: 'order-1',
    idempotency,
    facts: facts({ template: { state, variables }, ...over }),
  },
  metadata,
});

describe('Message decider', () => {
  describe('template sends (architecture section 13)', () => {
    it('renders the approved version: header, body and footer joined by blank lines, with the version it came from', () =>
      spec
        .given([])
        .when(templateSend(template('approved'), { order_id: '1042', name: 'Ann' }))
        .then([
          {
            type: 'MessageSent',
            data: {
              ...status,
              userId: 'usr_1',
              type: 'template',
              text: 'Order 1042\n\nHi Ann, it has shipped.\n\nReply STOP to stop.',
              template: { id: 'tpl_1', name: 'order_shipped', language: 'en', version: 2 },
              media: [],
              businessInitiated: false,
              idempotency,
            },
          },
        ]));
    it('no template of that name and language: 404 template_not_found', () =>
      spec
        .given([])
        .when(templateSend({ kind: 'absent' }, {}))
        .thenThrows('template_not_found'));
    it('a pending or rejected version: 409 template_not_approved', () => {
      spec
        .given([])
        .when(templateSend(template('pending'), { order_id: '1', name: 'A' }))
        .thenThrows('template_not_approved');
      spec
        .given([])
        .when(templateSend(template('rejected'), { order_id: '1', name: 'A' }))
        .thenThrows('template_not_approved');
    });
    it('a missing or unknown variable: 400 invalid_request', () =>
      spec
        .given([])
        .when(templateSend(template('approved'), { order_id: '1', nick: 'A' }))
        .thenThrows('invalid_request'));
    it("the template is checked after consent (D9: in the media checks' place)", () =>
      spec
        .given([])
        .when(templateSend({ kind: 'absent' }, {}, { consent: 'opted_out' }))
        .thenThrows('consent_required'));
    it('the counts still apply to a template send', () =>
      spec
        .given([])
        .when(templateSend(template('approved'), { order_id: '1', name: 'A' }, { dailyUsage: usage(10_000) }))
        .thenThrows('daily_quota_exceeded'));
  });

  describe('send: accepted and handed over at once (D3)', () => {
    it('a sandbox key reaches an opted-in accepted tester', () => spec.given([]).when(send(facts())).then([sent()]));
    it('outside the reply window the send is business-initiated', () =>
      spec
        .given([])
        .when(send(facts({ lastUserMessageAt: null })))
        .then([sent(true)]));
    it('keeps a null clientReference', () =>
      spec
        .given([])
        .when(send(facts(), 'text', null))
        .then([
          {
            type: 'MessageSent',
            data: { ...status, clientReference: null, userId: 'usr_1', type: 'text', text: 'Hello', media: [], businessInitiated: false, idempotency },
          },
        ]));
    it('an internal_live app with a live key reaches its own org', () =>
      spec
        .given([])
        .when(send(live('internal_live')))
        .then([sent()]));
    it('a public_live app reaches an org that allows outside businesses', () =>
      spec
        .given([])
        .when(send(live('public_live', { recipient: { ...recipient, orgId: 'org_other', orgAllowsExternalBusinesses: true } })))
        .then([sent()]));
    it('a public_live app reaches its own org even when that org blocks outside businesses', () =>
      spec
        .given([])
        .when(send(live('public_live')))
        .then([sent()]));
    it('a sandbox key works on a live app, for testers', () =>
      spec
        .given([])
        .when(send(facts({ app: { appId: 'app_1', orgId: APP_ORG, status: 'public_live', dailyQuota: 5 } })))
        .then([sent()]));
    it('email addressing: internal_live, live key, recipient in the org', () =>
      spec
        .given([])
        .when(send(live('internal_live', { addressedBy: 'email' })))
        .then([sent()]));
    it('a media message with a ready file of the right kind', () =>
      spec
        .given([])
        .when(send(facts({ media: media() }), 'image'))
        .then([sent(false, 'image')]));
    it('file takes documents and other files', () => {
      spec
        .given([])
        .when(send(facts({ media: media({ kind: 'document' }) }), 'file'))
        .then([sent(false, 'file')]);
      spec
        .given([])
        .when(send(facts({ media: media({ kind: 'other' }) }), 'file'))
        .then([sent(false, 'file')]);
    });
    it('a message id is used once', () => {
      spec.given([sent()]).when(send(facts())).thenThrows('invalid_transition');
      spec.given(acceptedThenSent()).when(send(facts())).thenThrows('invalid_transition');
    });
  });

  describe('folding a send (D3): one event, or two in streams written before', () => {
    const fold = (events: MessageEvent[]) => events.reduce(messageDecider.evolve, messageDecider.initialState());
    it('MessageSent alone opens the message sent', () =>
      expect(fold([sent()])).toEqual({ kind: 'outbound', messageId: 'msg_1', appUserId: recipient.appUserId, clientReference: 'order-1', status: 'sent' }));
    it('MessageAccepted then MessageSent folds to the same state', () => expect(fold(acceptedThenSent())).toEqual(fold([sent()])));
    it('and so do both with a receipt after them', () => expect(fold([...acceptedThenSent(), read])).toEqual(fold([sent(), read])));
    it('a business-initiated send folds alike', () => expect(fold(acceptedThenSent(true))).toEqual(fold([sent(true)])));
  });

  describe('send rules, each on its own', () => {
    it('email addressing with a sandbox key', () => refused(facts({ addressedBy: 'email' }), 'email_addressing_not_allowed'));
    it('email addressing from a public_live app', () => refused(live('public_live', { addressedBy: 'email' }), 'email_addressing_not_allowed'));
    it('email addressing from a sandbox app', () =>
      refused(
        facts({ keyEnvironment: 'live', addressedBy: 'email', app: { appId: 'app_1', orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } }),
        'email_addressing_not_allowed',
      ));
    it('email of someone outside the org', () =>
      refused(live('internal_live', { addressedBy: 'email', recipient: { ...recipient, orgId: 'org_other' } }), 'email_addressing_not_allowed'));
    it('unknown email', () => refused(live('internal_live', { addressedBy: 'email', recipient: null }), 'recipient_not_found'));
    it('unknown appUserId', () => refused(facts({ recipient: null }), 'recipient_not_found'));
    it('deactivated account', () => refused(facts({ recipient: { ...recipient, status: 'deactivated' } }), 'recipient_unavailable'));
    it('deleted account', () => refused(facts({ recipient: { ...recipient, status: 'deleted' } }), 'recipient_unavailable'));
    it('sandbox key, not an accepted tester', () => refused(facts({ isAcceptedTester: false }), 'recipient_not_tester'));
    it('internal_live, recipient outside the org', () =>
      refused(live('internal_live', { recipient: { ...recipient, orgId: 'org_other', orgAllowsExternalBusinesses: true } }), 'recipient_outside_org'));
    it('public_live, recipient org blocks businesses', () =>
      refused(live('public_live', { recipient: { ...recipient, orgId: 'org_other' } }), 'recipient_org_blocks_businesses'));
    it('no consent', () => refused(facts({ consent: null }), 'consent_required'));
    it('opted out', () => refused(facts({ consent: 'opted_out' }), 'consent_required'));
    it('blocked', () => refused(facts({ consent: 'blocked' }), 'consent_required'));
    it('unknown media', () => refused(facts({ media: { found: false } }), 'invalid_request', 'image'));
    it('media of another kind (D11)', () => {
      refused(facts({ media: media({ kind: 'video' }) }), 'invalid_request', 'image');
      refused(facts({ media: media({ kind: 'image' }) }), 'invalid_request', 'file');
      refused(facts({ media: media({ kind: 'document' }) }), 'invalid_request', 'audio');
    });
    it('media not uploaded yet', () => refused(facts({ media: media({ status: 'pending_upload' }) }), 'media_not_uploaded', 'image'));
    it('media whose bytes differ from the declaration', () => refused(facts({ media: media({ status: 'invalid' }) }), 'media_invalid', 'image'));
    it('a fourth business-initiated message in 24 h', () =>
      refused(facts({ lastUserMessageAt: null, businessInitiatedSentAt: sentWithin24h(3) }), 'business_initiated_cap'));
    it('inside the window there is no cap', () =>
      spec
        .given([])
        .when(send(facts({ lastUserMessageAt: before(HOUR), businessInitiatedSentAt: sentWithin24h(50) })))
        .then([sent()]));
    it('the daily quota used up', () => refused(facts({ dailyUsage: usage(10_000) }), 'daily_quota_exceeded'));
    it('a quota of 0 refuses everything', () =>
      refused(facts({ app: { appId: 'app_1', orgId: APP_ORG, status: 'sandbox', dailyQuota: 0 } }), 'daily_quota_exceeded'));
  });

  describe("the reply window (D6): 24 h from the user's last message", () => {
    it('open 23:59:59 after it: the send is not business-initiated', () =>
      spec
        .given([])
        .when(send(facts({ lastUserMessageAt: before(24 * HOUR - 1000) })))
        .then([sent(false)]));
    it('closed at exactly 24:00:00: the send is business-initiated', () =>
      spec
        .given([])
        .when(send(facts({ lastUserMessageAt: before(24 * HOUR) })))
        .then([sent(true)]));
    it('closed when the user never wrote', () =>
      spec
        .given([])
        .when(send(facts({ lastUserMessageAt: null })))
        .then([sent(true)]));
  });

  describe('business-initiated cap (D7): 3 in any rolling 24 h', () => {
    const outside = (sentAt: Date[]) => facts({ lastUserMessageAt: null, businessInitiatedSentAt: sentAt });
    it('the third is accepted', () =>
      spec
        .given([])
        .when(send(outside(sentWithin24h(2))))
        .then([sent(true)]));
    it('the fourth is refused', () => refused(outside(sentWithin24h(3)), 'business_initiated_cap'));
    it('a send exactly 24 h old no longer counts', () =>
      spec
        .given([])
        .when(send(outside([before(24 * HOUR), before(2 * HOUR), before(HOUR)])))
        .then([sent(true)]));
    it('a send 23:59:59 old still counts', () => refused(outside([before(24 * HOUR - 1000), before(2 * HOUR), before(HOUR)]), 'business_initiated_cap'));
  });

  describe('daily quota (D8): per UTC day, reset at 00:00 UTC', () => {
    const quota = (dailyQuota: number, dailyUsage: { day: string; accepted: number }) =>
      facts({ app: { appId: 'app_1', orgId: APP_ORG, status: 'sandbox', dailyQuota }, dailyUsage });
    it('the last send of the quota is accepted', () =>
      spec
        .given([])
        .when(send(quota(5, usage(4))))
        .then([sent()]));
    it('at 23:59:59 UTC the used-up quota still refuses', () =>
      spec
        .given([])
        .when(send(quota(5, usage(5, '2026-11-01')), 'text', 'order-1', new Date('2026-11-01T23:59:59Z')))
        .thenThrows('daily_quota_exceeded'));
    it('at 00:00:00 UTC the day before no longer counts', () =>
      spec
        .given([])
        .when(send(quota(5, usage(5, '2026-11-01')), 'text', 'order-1', new Date('2026-11-02T00:00:00Z')))
        .then([sent()]));
  });

  describe('send rules in D9 order: the earlier check answers', () => {
    const everythingWrong = facts({
      isAcceptedTester: false,
      consent: 'blocked',
      media: { found: false },
      lastUserMessageAt: null,
      businessInitiatedSentAt: sentWithin24h(3),
      dailyUsage: usage(10_000),
    });
    it('email addressing before recipient_not_found', () =>
      refused({ ...everythingWrong, addressedBy: 'email', recipient: null }, 'email_addressing_not_allowed', 'image'));
    it('recipient_not_found before the rest', () => refused({ ...everythingWrong, recipient: null }, 'recipient_not_found', 'image'));
    it('recipient_unavailable before reach', () =>
      refused({ ...everythingWrong, recipient: { ...recipient, status: 'deleted' } }, 'recipient_unavailable', 'image'));
    it('reach before consent', () => refused(everythingWrong, 'recipient_not_tester', 'image'));
    it('consent before media', () => refused({ ...everythingWrong, isAcceptedTester: true }, 'consent_required', 'image'));
    it('media before the cap', () => refused({ ...everythingWrong, isAcceptedTester: true, consent: 'opted_in' }, 'invalid_request', 'image'));
    it('the cap before the quota', () =>
      refused({ ...everythingWrong, isAcceptedTester: true, consent: 'opted_in', media: media() }, 'business_initiated_cap', 'image'));
    it('the quota last', () =>
      refused(
        { ...everythingWrong, isAcceptedTester: true, consent: 'opted_in', media: media(), businessInitiatedSentAt: sentWithin24h(2) },
        'daily_quota_exceeded',
        'image',
      ));
  });

  // D3: a stream written before one event per send (MessageAccepted, MessageSent) folds to the state of one written since.
  const streams: [string, MessageEvent[]][] = [
    ['one event per send', [sent()]],
    ['written before: accepted, then sent', acceptedThenSent()],
  ];

  describe.each(streams)('receipts and failure, %s', (_, opened) => {
    it('sent → delivered', () =>
      spec
        .given(opened)
        .when({ type: 'RecordReceipt', data: { status: 'delivered' }, metadata })
        .then([delivered]));
    it('delivered → read', () =>
      spec
        .given([...opened, delivered])
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .then([read]));
    it('read before delivered leaves the message read', () => {
      spec
        .given(opened)
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .then([read]);
      spec
        .given([...opened, read])
        .when({ type: 'RecordReceipt', data: { status: 'delivered' }, metadata })
        .then([]);
    });
    it('a repeated receipt changes nothing', () => {
      spec
        .given([...opened, delivered])
        .when({ type: 'RecordReceipt', data: { status: 'delivered' }, metadata })
        .then([]);
      spec
        .given([...opened, delivered, read])
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .then([]);
    });
    it('the chat product refusing a handoff fails the message (D4)', () =>
      spec
        .given(opened)
        .when({ type: 'RecordDeliveryRefusal', data: { reason: 'consent_revoked' }, metadata })
        .then([failed]));
    it('a failed message takes no receipts', () =>
      spec
        .given([...opened, failed])
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .then([]));
    it('a refusal after delivery changes nothing', () =>
      spec
        .given([...opened, delivered])
        .when({ type: 'RecordDeliveryRefusal', data: { reason: 'consent_revoked' }, metadata })
        .then([]));
    it('receipts for unknown messages are refused', () =>
      spec
        .given([])
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .thenThrows('not_found'));
  });

  describe.each(streams)('delivery deadline (D4: 30 days), %s', (_, opened) => {
    const handedOverAt = '2026-01-01T00:00:00.000Z';
    const expire = (now: string): MessageCommand => ({ type: 'ExpireMessage', data: { handedOverAt }, metadata: { now: new Date(now) } });
    const expired: MessageEvent = { type: 'MessageFailed', data: { ...status, reason: 'expired' } };
    it('an undelivered message fails as expired after 30 days', () => spec.given(opened).when(expire('2026-01-31T00:00:00.000Z')).then([expired]));
    it('is not expired a millisecond earlier', () => spec.given(opened).when(expire('2026-01-30T23:59:59.999Z')).thenThrows('invalid_transition'));
    it('a delivered message never expires', () =>
      spec
        .given([...opened, delivered])
        .when(expire('2026-03-01T00:00:00.000Z'))
        .then([]));
    it('a read message never expires', () =>
      spec
        .given([...opened, read])
        .when(expire('2026-03-01T00:00:00.000Z'))
        .then([]));
    it('a failed message keeps its first reason', () =>
      spec
        .given([...opened, failed])
        .when(expire('2026-03-01T00:00:00.000Z'))
        .then([]));
    it('an inbound message cannot expire', () =>
      spec
        .given([
          {
            type: 'MessageReceived',
            data: { messageId: 'msg_1', appUserId: recipient.appUserId, userId: 'usr_1', type: 'text', text: 'Hi', media: [], replyTo: null },
          },
        ])
        .when(expire('2026-03-01T00:00:00.000Z'))
        .thenThrows('not_found'));
    it('a receipt after expiry changes nothing', () =>
      spec
        .given([...opened, expired])
        .when({ type: 'RecordReceipt', data: { status: 'delivered' }, metadata })
        .then([]));
  });

  describe('inbound messages', () => {
    const inbound: MessageCommand = {
      type: 'RecordInboundMessage',
      data: { messageId: 'msg_in', appUserId: recipient.appUserId, userId: 'usr_1', type: 'text', text: 'Hi', media: [], replyTo: 'msg_1' },
      metadata,
    };
    it('a user message becomes a received message', () =>
      spec
        .given([])
        .when(inbound)
        .then([{ type: 'MessageReceived', data: inbound.data } as MessageEvent]));
    it('recorded once', () =>
      spec
        .given([{ type: 'MessageReceived', data: inbound.data } as MessageEvent])
        .when(inbound)
        .then([]));
    it('takes no receipts', () =>
      spec
        .given([{ type: 'MessageReceived', data: inbound.data } as MessageEvent])
        .when({ type: 'RecordReceipt', data: { status: 'read' }, metadata })
        .thenThrows('not_found'));
  });
});
