import type { ErrorCode } from '#platform/contracts';
import type { MessageEvent } from '../messages/message.state';
import type { SendFactsBeforeCounts } from '../messages/send-rules';
import { businessInitiatedCountsWanted, decideSendBatch, type SendBatchDecision, type SendBatchFacts, type SendCommand } from './send-batch.decider';

// Given the counts stored before the batch, when its sends arrive in this order, then each send's
// events or refusal code, and what the batch added to the counts. Everything given is frozen: the
// batch must not write to the facts it reads.
const given = (facts: Partial<SendBatchFacts> = {}) => ({
  when: (...commands: SendCommand[]) => {
    const run = () => decideSendBatch(deepFreeze(commands), deepFreeze({ acceptedOnDay: [], businessInitiated: [], ...facts }));
    return {
      then(verdicts: (MessageEvent[] | ErrorCode)[], consumed?: SendBatchDecision['consumed']) {
        const { decisions, consumed: actual } = run();
        expect(decisions.map((d) => (d.ok ? d.events : d.refusal.code))).toEqual(verdicts);
        if (consumed) expect(actual).toEqual(consumed);
      },
    };
  },
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const HOUR = 3600 * 1000;
const NOW = new Date('2026-11-01T10:00:00Z');
const at = (iso: string) => new Date(iso);
const before = (ms: number, from = NOW) => new Date(from.getTime() - ms);
const APP = 'app_1';
const APP_ORG = 'org_app';
const user = (n: number) => ({
  userId: `usr_${n}`,
  appUserId: `u_${String(n).padStart(22, 'A')}`,
  orgId: APP_ORG,
  status: 'active' as const,
  orgAllowsExternalBusinesses: false,
});
const facts = (over: Partial<SendFactsBeforeCounts> = {}): SendFactsBeforeCounts => ({
  keyEnvironment: 'sandbox',
  app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 10_000 },
  addressedBy: 'appUserId',
  recipient: user(1),
  isAcceptedTester: true,
  consent: 'opted_in',
  media: null,
  template: null,
  // The reply window is open: not business-initiated.
  lastUserMessageAt: before(HOUR),
  ...over,
});
/** A user who never wrote: every send to them is business-initiated (D7). */
const closed = (over: Partial<SendFactsBeforeCounts> = {}) => facts({ lastUserMessageAt: null, ...over });
const withQuota = (dailyQuota: number, over: Partial<SendFactsBeforeCounts> = {}) =>
  facts({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota }, ...over });

let sequence = 0;
const send = (f: SendFactsBeforeCounts, now = NOW, type: 'text' | 'image' = 'text'): SendCommand => ({
  type: 'SendMessage',
  data: {
    messageId: `msg_${++sequence}`,
    type,
    text: type === 'text' ? 'Hello' : null,
    media: [],
    clientReference: null,
    idempotency: { key: `key-${sequence}`, bodyHash: 'hash' },
    facts: f,
  },
  metadata: { now },
});
/** The events of an accepted send: one MessageSent carrying the acceptance (D3). */
const accepted = (command: SendCommand, businessInitiated = false): MessageEvent[] => {
  const recipient = command.data.facts.recipient!;
  const status = { messageId: command.data.messageId, appUserId: recipient.appUserId, clientReference: null };
  return [
    {
      type: 'MessageSent',
      data: { ...status, userId: recipient.userId, type: 'text', text: 'Hello', media: [], businessInitiated, idempotency: command.data.idempotency },
    },
  ];
};
const storedBusinessInitiated = (n: number, sentAt: Date[]) => ({ appId: APP, appUserId: user(n).appUserId, sentAt });

describe('Send batch decider', () => {
  describe('business-initiated cap (D7) within one batch: each send counts those accepted before it', () => {
    it('the third and the fourth business-initiated send to one user in one batch: the fourth is refused', () => {
      const third = send(closed(), at('2026-11-01T10:00:00.000Z'));
      const fourth = send(closed(), at('2026-11-01T10:00:00.010Z'));
      given({ businessInitiated: [storedBusinessInitiated(1, [before(2 * HOUR), before(HOUR)])] })
        .when(third, fourth)
        .then([accepted(third, true), 'business_initiated_cap'], {
          acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 1, dailyQuota: 10_000 }],
          businessInitiated: [{ appId: APP, appUserId: user(1).appUserId, sentAt: [third.metadata.now] }],
        });
    });

    it('with none stored, a batch of four to one user accepts three', () => {
      const sends = [0, 1, 2, 3].map(() => send(closed()));
      given()
        .when(...sends)
        .then([accepted(sends[0], true), accepted(sends[1], true), accepted(sends[2], true), 'business_initiated_cap']);
    });

    it("another user's sends and sends inside the reply window use no one's cap", () => {
      const sends = [send(closed()), send(closed()), send(closed({ recipient: user(2) })), send(facts()), send(closed())];
      given({ businessInitiated: [storedBusinessInitiated(1, [before(HOUR)])] })
        .when(...sends)
        .then([accepted(sends[0], true), accepted(sends[1], true), accepted(sends[2], true), accepted(sends[3]), 'business_initiated_cap']);
    });

    it('a refused send counts nothing', () => {
      const sends = [send(closed({ consent: 'opted_out' })), send(closed()), send(closed()), send(closed())];
      given()
        .when(...sends)
        .then(['consent_required', accepted(sends[1], true), accepted(sends[2], true), accepted(sends[3], true)]);
    });

    it('a stored send that turns 24 h old between two sends of the batch counts for the first only', () => {
      const first = send(closed(), at('2026-11-01T10:00:00.000Z'));
      const second = send(closed(), at('2026-11-01T10:00:01.000Z'));
      given({ businessInitiated: [storedBusinessInitiated(1, [at('2026-10-31T10:00:01.000Z'), before(HOUR)])] })
        .when(first, second)
        .then([accepted(first, true), accepted(second, true)]);
      given({ businessInitiated: [storedBusinessInitiated(1, [at('2026-10-31T10:00:01.000Z'), before(2 * HOUR), before(HOUR)])] })
        .when(first, second)
        .then(['business_initiated_cap', accepted(second, true)]);
    });
  });

  describe('daily quota (D8) within one batch', () => {
    it("the quota's last message in one batch is accepted, the next refused", () => {
      const last = send(withQuota(5));
      const next = send(withQuota(5));
      given({ acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 4 }] })
        .when(last, next)
        .then([accepted(last), 'daily_quota_exceeded'], {
          acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 1, dailyQuota: 5 }],
          businessInitiated: [],
        });
    });

    it('a refused send uses none of the quota', () => {
      const sends = [send(withQuota(1, { consent: null })), send(withQuota(1)), send(withQuota(1))];
      given()
        .when(...sends)
        .then(['consent_required', accepted(sends[1]), 'daily_quota_exceeded']);
    });

    it("another app's count is its own", () => {
      const other = withQuota(1, { app: { appId: 'app_2', orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } });
      const sends = [send(withQuota(1)), send(other), send(withQuota(1))];
      given({ acceptedOnDay: [{ appId: 'app_2', day: '2026-11-01', accepted: 0 }] })
        .when(...sends)
        .then([accepted(sends[0]), accepted(sends[1]), 'daily_quota_exceeded']);
    });

    it('a batch across 00:00 UTC counts each send on the UTC day of its metadata.now', () => {
      const sends = [
        send(withQuota(2), at('2026-11-01T23:59:59.500Z')),
        send(withQuota(2), at('2026-11-01T23:59:59.900Z')),
        send(withQuota(2), at('2026-11-02T00:00:00.000Z')),
        send(withQuota(2), at('2026-11-02T00:00:00.100Z')),
        send(withQuota(2), at('2026-11-02T00:00:00.200Z')),
      ];
      given({ acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 1 }] })
        .when(...sends)
        .then([accepted(sends[0]), 'daily_quota_exceeded', accepted(sends[2]), accepted(sends[3]), 'daily_quota_exceeded'], {
          acceptedOnDay: [
            { appId: APP, day: '2026-11-01', accepted: 1, dailyQuota: 2 },
            { appId: APP, day: '2026-11-02', accepted: 2, dailyQuota: 2 },
          ],
          businessInitiated: [],
        });
    });

    it('a business-initiated send counts against both', () => {
      const sends = [send(closed({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })), send(withQuota(1))];
      given()
        .when(...sends)
        .then([accepted(sends[0], true), 'daily_quota_exceeded'], {
          acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 1, dailyQuota: 1 }],
          businessInitiated: [{ appId: APP, appUserId: user(1).appUserId, sentAt: [NOW] }],
        });
    });
  });

  describe('D9 order inside a batch: the earlier check answers, the counts come last', () => {
    const capReached = { businessInitiated: [storedBusinessInitiated(1, [before(3 * HOUR), before(2 * HOUR), before(HOUR)])] };
    const quotaUsed = { acceptedOnDay: [{ appId: APP, day: '2026-11-01', accepted: 1 }] };
    it('recipient, reach, consent and media answer before the counts', () =>
      given({ ...capReached, ...quotaUsed })
        .when(
          send(closed({ recipient: null, app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })),
          send(closed({ isAcceptedTester: false, app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })),
          send(closed({ consent: 'blocked', app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })),
          send(closed({ media: { found: false }, app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } }), NOW, 'image'),
        )
        .then(['recipient_not_found', 'recipient_not_tester', 'consent_required', 'invalid_request']));
    it('the cap before the quota', () =>
      given({ ...capReached, ...quotaUsed })
        .when(send(closed({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })))
        .then(['business_initiated_cap']));
    it('the cap before a quota of 0', () =>
      given(capReached)
        .when(send(closed({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 0 } })))
        .then(['business_initiated_cap']));
    it('the quota last', () =>
      given(quotaUsed)
        .when(send(closed({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 1 } })))
        .then(['daily_quota_exceeded']));
  });

  describe('the D7 counts a batch loads (and locks): only where they can decide a send', () => {
    const wanted = (...commands: SendCommand[]) => businessInitiatedCountsWanted(deepFreeze(commands));
    it('a business-initiated send passing every earlier check, from 24 h before its user’s earliest send', () =>
      expect(wanted(send(closed(), at('2026-11-01T10:00:05Z')), send(closed(), at('2026-11-01T10:00:01Z')), send(closed({ recipient: user(2) })))).toEqual([
        { appId: APP, appUserId: user(1).appUserId, since: at('2026-10-31T10:00:01Z') },
        { appId: APP, appUserId: user(2).appUserId, since: before(24 * HOUR) },
      ]));
    it('none for a send inside the reply window, or refused before the cap', () =>
      expect(
        wanted(send(facts()), send(closed({ recipient: null })), send(closed({ consent: 'opted_out' })), send(closed({ isAcceptedTester: false }))),
      ).toEqual([]));
    it('a quota of 0 does not hide the cap, which D9 checks first', () =>
      expect(wanted(send(closed({ app: { appId: APP, orgId: APP_ORG, status: 'sandbox', dailyQuota: 0 } })))).toEqual([
        { appId: APP, appUserId: user(1).appUserId, since: before(24 * HOUR) },
      ]));
  });
});
