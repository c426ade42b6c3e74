import { mailSettingsFromEnv, smtpTransportOptions } from './smtp-transport';

const production = { production: true };

describe('SMTP in production: TLS or nothing', () => {
  it('takes smtps:// as it is (TLS from the first byte) and requires STARTTLS on smtp://', () => {
    expect(smtpTransportOptions({ SMTP_URL: 'smtps://u:p@smtp.example.com:465' }, production)).toEqual({
      url: 'smtps://u:p@smtp.example.com:465',
      requireTLS: false,
    });
    expect(smtpTransportOptions({ SMTP_URL: 'smtp://u:p@smtp.example.com:587' }, production)).toEqual({
      url: 'smtp://u:p@smtp.example.com:587',
      requireTLS: true,
    });
  });

  it('refuses URL parameters that would turn TLS off or make it optional', () => {
    for (const query of ['ignoreTLS=true', 'requireTLS=false', 'secure=false', 'opportunisticTLS=true', 'tls.rejectUnauthorized=false']) {
      expect(() => mailSettingsFromEnv({ SMTP_URL: `smtp://u:p@smtp.example.com:587?${query}` }, production)).toThrow('TLS is required');
      expect(() => mailSettingsFromEnv({ SMTP_URL: `smtps://u:p@smtp.example.com:465?${query}` }, production)).toThrow('TLS is required');
    }
  });

  it('allows plaintext only to the relay SMTP_PLAINTEXT_RELAY names, which must be the smtp:// URL’s host', () => {
    expect(smtpTransportOptions({ SMTP_URL: 'smtp://127.0.0.1:25', SMTP_PLAINTEXT_RELAY: '127.0.0.1' }, production).requireTLS).toBe(false);
    expect(smtpTransportOptions({ SMTP_URL: 'smtp://Relay.Mail.svc:25', SMTP_PLAINTEXT_RELAY: 'relay.mail.svc' }, production).requireTLS).toBe(false);
    expect(smtpTransportOptions({ SMTP_URL: 'smtp://[::1]:25', SMTP_PLAINTEXT_RELAY: '::1' }, production).requireTLS).toBe(false);
    expect(() => mailSettingsFromEnv({ SMTP_URL: 'smtp://smtp.example.com:25', SMTP_PLAINTEXT_RELAY: '127.0.0.1' }, production)).toThrow(
      'SMTP_PLAINTEXT_RELAY=127.0.0.1 must name the host',
    );
    expect(() => mailSettingsFromEnv({ SMTP_URL: 'smtps://127.0.0.1:465', SMTP_PLAINTEXT_RELAY: '127.0.0.1' }, production)).toThrow(
      'must name the host of an smtp://',
    );
  });

  it('leaves dev and test as they were: plaintext to the local sink', () => {
    expect(smtpTransportOptions({}, { production: false })).toEqual({ url: 'smtp://127.0.0.1:1025', requireTLS: false });
    expect(smtpTransportOptions({ SMTP_URL: 'smtp://127.0.0.1:2525' }, { production: false })).toEqual({ url: 'smtp://127.0.0.1:2525', requireTLS: false });
  });
});
