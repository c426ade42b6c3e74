import { createTransport } from 'nodemailer';
import { admin, eventually, expectError, expectStatus, unique } from '#platform/testing';

/** GET /admin/v1/mail reads the local SMTP sink of tools/infra, which the test stack sends to (SMTP_URL). */
describe('admin API: the local mail sink (e2e)', () => {
  const smtp = createTransport(process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025');
  afterAll(() => smtp.close());

  it("lists what the sink caught for an address, newest first, with the spec's fields", async () => {
    const to = `${unique('owner.')}@mail.example`;
    const other = `${unique('someone.')}@mail.example`;
    await smtp.sendMail({ from: 'no-reply@localhost', to, subject: 'First', text: 'one', html: '<p>one</p>' });
    await smtp.sendMail({ from: 'no-reply@localhost', to: [to.toUpperCase(), other], subject: 'Second', text: 'two', html: '<p>two</p>' });

    const mail = await eventually(async () => {
      const res = expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(to)}`), 200);
      return res.body.data.length === 2 ? res.body.data : null;
    });
    expect(mail).toEqual([
      { id: expect.stringMatching(/^mail_/), to: [to, other], subject: 'Second', text: 'two', html: '<p>two</p>', sentAt: expect.any(String) },
      { id: expect.stringMatching(/^mail_/), to: [to], subject: 'First', text: 'one', html: '<p>one</p>', sentAt: expect.any(String) },
    ]);
    expect(Date.parse(mail[0].sentAt)).toBeGreaterThanOrEqual(Date.parse(mail[1].sentAt));
    expect(expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(other)}`), 200).body.data.map((m: { subject: string }) => m.subject)).toEqual([
      'Second',
    ]);
    expect(expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(unique('nobody.'))}%40mail.example`), 200).body).toEqual({ data: [] });
  });

  it('needs an address and the admin token', async () => {
    expectError(await admin('GET', '/mail'), 400, 'invalid_request');
    expectError(await admin('GET', '/mail?to=not-an-address'), 400, 'invalid_request');
    expectError(await admin('GET', '/mail?to=a%40b.example', undefined, 'wrong-token'), 401, 'invalid_api_key');
  });
});
