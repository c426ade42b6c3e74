import { createServer, type Server } from 'node:net';
import { TestClock } from '#platform/clock';
import { FakeDnsServer } from '#platform/testing';
import { WebhookHttpClient } from '../outbound/webhook-http-client';
import { WebhookNetwork } from '../network/webhook-network';
import { dnsHostResolver } from '../url-safety/host-resolver';
import { UrlSafety } from '../url-safety/url-safety';
import { attemptDelivery, type ClaimedDelivery } from './delivery-attempt';

/**
 * The check at delivery, over real DNS: a name that resolved to a public address at registration
 * and now resolves inside (DNS rebinding) is refused at the attempt, and no connection is made.
 */
describe('delivery attempt: the URL is checked again at every delivery (real DNS over UDP)', () => {
  let dns: FakeDnsServer;
  let listener: Server;
  let connections = 0;
  let network: WebhookNetwork;

  beforeAll(async () => {
    dns = await FakeDnsServer.start({ port: 0 });
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(443, '127.0.0.1', () => resolve()));
    network = new WebhookNetwork(new UrlSafety({ resolver: dnsHostResolver({ servers: [dns.address], timeoutMs: 500 }) }), new WebhookHttpClient());
  });
  afterAll(async () => {
    await network?.close();
    await dns?.close();
    await new Promise((resolve) => listener?.close(resolve));
  });

  const delivery = (url: string): ClaimedDelivery => ({
    deliveryId: 'wd_1',
    appId: 'app_1',
    endpointId: 'we_1',
    eventId: 'evt_1',
    eventType: 'message.status',
    attempt: 1,
    createdAt: new Date().toISOString(),
    payload: '{"id":"evt_1"}',
    endpointState: 'enabled',
    url,
    secret: 'whsec_test',
    previousSecret: null,
    previousSecretExpiresAt: null,
  });

  it.each([
    ['loopback', ['127.0.0.1']],
    ['cloud metadata', ['169.254.169.254']],
    ['a public and a private address', ['93.184.215.14', '10.0.0.7']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
  ])('a name that now resolves to %s is refused at the attempt', async (_label, answer) => {
    const url = 'https://rebind.acme-corp.com/hooks';
    dns.clear();
    dns.answer('rebind.acme-corp.com', ['93.184.215.14']);
    expect((await network.urlSafety.check(url)).ok).toBe(true);

    dns.clear();
    dns.answer('rebind.acme-corp.com', answer);
    const report = await attemptDelivery(delivery(url), network, new TestClock());
    expect(report.result).toEqual({ kind: 'refused', error: expect.stringContaining('webhook_url_blocked_address') });
    expect(connections).toBe(0);
  });

  it('a name that stopped resolving is refused as dns_failed, with no connection', async () => {
    dns.clear();
    dns.answer('gone.acme-corp.com', 'nxdomain');
    const report = await attemptDelivery(delivery('https://gone.acme-corp.com/hooks'), network, new TestClock());
    expect(report.result).toEqual({ kind: 'refused', error: expect.stringContaining('webhook_url_dns_failed') });
    expect(connections).toBe(0);
  });

  it('an endpoint that is no longer enabled is abandoned without a lookup', async () => {
    dns.clear();
    const report = await attemptDelivery({ ...delivery('https://rebind.acme-corp.com/hooks'), endpointState: 'disabled' }, network, new TestClock());
    expect(report.result).toBeNull();
    expect(report.abandonReason).toEqual(expect.any(String));
    expect(dns.queries).toHaveLength(0);
  });
});
