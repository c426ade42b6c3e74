import { FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, retryDelayMs } from './mail-retry';
import { mailMessageId } from './outgoing-mail';
import { mailSettingsFromEnv } from './smtp-transport';

describe('retryDelayMs', () => {
  const noJitter = () => 0;

  it('waits a second after the first failure and doubles after each further one', () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, noJitter))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(1, noJitter)).toBe(FIRST_RETRY_DELAY_MS);
  });

  it('never waits more than five minutes (plus jitter), however long the server stays down', () => {
    expect(retryDelayMs(9, noJitter)).toBe(256_000);
    expect(retryDelayMs(10, noJitter)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(10_000, noJitter)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('adds at most a fifth at random, so senders that failed together spread out', () => {
    expect(retryDelayMs(3, () => 0.999999)).toBe(4800);
    expect(retryDelayMs(3, () => 0.5)).toBe(4400);
  });
});

describe('mailMessageId', () => {
  const hash = (text: string) => `h(${text})`;

  it('is the hash of the cause at the From address domain, the same every time', () => {
    expect(mailMessageId('evt_1:endpoint-disabled:a@b.test', 'no-reply@mail.example.com', hash)).toBe('h(evt_1:endpoint-disabled:a@b.test)@mail.example.com');
    expect(mailMessageId('c', 'x@y', hash)).toBe(mailMessageId('c', 'x@y', hash));
  });
});

describe('mailSettingsFromEnv', () => {
  it('reads SMTP_URL and MAIL_FROM, with the local sink and no-reply@localhost in dev', () => {
    expect(mailSettingsFromEnv({}, { production: false }).from).toBe('no-reply@localhost');
    expect(mailSettingsFromEnv({ SMTP_URL: 'smtps://u:p@smtp.example.com:465', MAIL_FROM: 'hello@example.com' }, { production: true }).from).toBe(
      'hello@example.com',
    );
  });

  it('refuses production without SMTP_URL, a URL that is not SMTP and a From that is not an address', () => {
    expect(() => mailSettingsFromEnv({}, { production: true })).toThrow('SMTP_URL is required in production');
    expect(() => mailSettingsFromEnv({ SMTP_URL: 'http://example.com' }, { production: false })).toThrow('smtp:// or smtps://');
    expect(() => mailSettingsFromEnv({ MAIL_FROM: 'Platform <no-reply@x.test>' }, { production: false })).toThrow('MAIL_FROM');
  });
});
