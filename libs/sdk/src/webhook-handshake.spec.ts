import { answerHandshake } from './webhook-handshake';

const TOKEN = 'my-verify-token';
const QUERY = `svc.mode=subscribe&svc.verify_token=${TOKEN}&svc.challenge=ch4ll3nge_XYZ`;
const ACCEPT = { ok: true, status: 200, body: 'ch4ll3nge_XYZ' };
const REFUSE = { ok: false, status: 403, body: '' };

describe('answerHandshake', () => {
  it('echoes the challenge for subscribe with the right token, whatever the query’s shape', () => {
    expect(answerHandshake(new URLSearchParams(QUERY), TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake(QUERY, TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake(`?${QUERY}`, TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake(`/hooks/platform?${QUERY}`, TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake(new URL(`https://example.test/hooks?${QUERY}`), TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake(`https://example.test/hooks?${QUERY}`, TOKEN)).toEqual(ACCEPT);
    expect(answerHandshake({ 'svc.mode': 'subscribe', 'svc.verify_token': TOKEN, 'svc.challenge': 'ch4ll3nge_XYZ' }, TOKEN)).toEqual(ACCEPT);
  });

  it('refuses a wrong token, another mode, a missing part or a repeated token', () => {
    expect(answerHandshake(QUERY.replace(TOKEN, 'my-verify-tokeN'), TOKEN)).toEqual(REFUSE);
    expect(answerHandshake(QUERY.replace(TOKEN, `${TOKEN}x`), TOKEN)).toEqual(REFUSE);
    expect(answerHandshake(QUERY.replace('subscribe', 'unsubscribe'), TOKEN)).toEqual(REFUSE);
    expect(answerHandshake(QUERY.replace('&svc.challenge=ch4ll3nge_XYZ', ''), TOKEN)).toEqual(REFUSE);
    expect(answerHandshake(`${QUERY}&svc.verify_token=other`, TOKEN)).toEqual(REFUSE);
    expect(answerHandshake({ 'svc.mode': 'subscribe', 'svc.verify_token': [TOKEN, TOKEN], 'svc.challenge': 'c' }, TOKEN)).toEqual(REFUSE);
    expect(answerHandshake('', TOKEN)).toEqual(REFUSE);
    // An empty configured token never matches an empty one sent.
    expect(answerHandshake('svc.mode=subscribe&svc.verify_token=&svc.challenge=c', '')).toEqual(REFUSE);
  });
});
