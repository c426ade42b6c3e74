import type { EventOf } from '#platform/contracts';
import { endpointDisabledEmails } from './endpoint-disabled.rule';

const disabledAt = '2026-03-04T10:00:00.000Z';
const event: EventOf<'WebhookEndpointDisabled'> = {
  eventId: '0193b6a0-0000-7000-8000-000000000001',
  type: 'WebhookEndpointDisabled',
  schemaVersion: 1,
  occurredAt: disabledAt,
  appId: 'app_1',
  correlationId: null,
  causationId: null,
  streamId: 'endpoint-we_1',
  data: {
    endpointId: 'we_1',
    url: 'https://hooks.example.com/in',
    reason: 'every delivery failed for 3 days',
    failingSince: '2026-03-01T09:00:00.000Z',
    lastError: 'answered 503',
  },
} as EventOf<'WebhookEndpointDisabled'>;
const facts = (now: string, owners = ['ana@example.com', 'bo@example.com']) => ({
  owners,
  appName: 'Widgets',
  consoleUrl: 'https://console.example.com',
  now: new Date(now),
});

describe('D25 emails: an endpoint disabled after 3 days of failure', () => {
  it('mails each owner once, naming the endpoint, since when it failed, the last error and how to re-verify', () => {
    const emails = endpointDisabledEmails(event, facts(disabledAt));
    expect(emails.map((email) => email.to)).toEqual([['ana@example.com'], ['bo@example.com']]);
    expect(new Set(emails.map((email) => email.cause)).size).toBe(2);
    const [email] = emails;
    expect(email.cause).toBe(`${event.eventId}:endpoint-disabled:ana@example.com`);
    expect(email.subject).toBe('Webhook endpoint disabled: https://hooks.example.com/in');
    for (const body of [email.text, email.html]) {
      expect(body).toContain('https://hooks.example.com/in');
      expect(body).toContain('we_1');
      expect(body).toContain('Sun, 01 Mar 2026 09:00:00 GMT');
      expect(body).toContain('answered 503');
      expect(body).toContain('https://console.example.com/apps/app_1/webhooks');
      expect(body).toContain('POST /platform/v1/webhooks/we_1/verify');
    }
  });

  it('escapes what the endpoint or its error put into the HTML', () => {
    const hostile = { ...event, data: { ...event.data, lastError: '<script>alert(1)</script>' } };
    const [email] = endpointDisabledEmails(hostile, facts(disabledAt));
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
  });

  it('says the error is not recorded for an event written before it was', () => {
    const old = { ...event, data: { ...event.data, lastError: undefined } };
    expect(endpointDisabledEmails(old, facts(disabledAt))[0].text).toContain('The last error: not recorded.');
  });

  it('mails nobody when the app has no owner', () => {
    expect(endpointDisabledEmails(event, facts(disabledAt, []))).toEqual([]);
  });

  it('still mails a day after the disabling, and not a moment later (history read again)', () => {
    expect(endpointDisabledEmails(event, facts('2026-03-05T10:00:00.000Z'))).toHaveLength(2);
    expect(endpointDisabledEmails(event, facts('2026-03-05T10:00:00.001Z'))).toEqual([]);
  });
});
