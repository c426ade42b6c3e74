import type { UrlRefusalCode } from './url-safety';

/**
 * Webhook URLs an attacker would register to make the platform call into its own network, and
 * what each must be refused with. Shared by the unit tests (in-memory DNS) and anything else that
 * wants to prove the same table, such as the registration API tests.
 *
 * `dns` is the whole DNS as the case sees it: names not listed do not exist. Cases without `dns`
 * must be refused before any lookup.
 */
export type FakeDnsAnswer = string[] | 'nxdomain' | 'servfail';

export interface HostileUrlCase {
  name: string;
  url: string;
  dns?: Record<string, FakeDnsAnswer>;
  code: UrlRefusalCode;
}

export interface AllowedUrlCase {
  name: string;
  url: string;
  dns: Record<string, FakeDnsAnswer>;
  /** The address the delivery must connect to. */
  address: string;
  /** The normalised URL, where it differs from `url`. */
  normalised?: string;
}

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:1a6f';

export const HOSTILE_URL_CASES: HostileUrlCase[] = [
  // Not a URL we can deliver to at all.
  { name: 'empty string', url: '', code: 'webhook_url_invalid_url' },
  { name: 'relative path', url: '/webhooks', code: 'webhook_url_invalid_url' },
  { name: 'scheme-relative URL', url: '//hooks.acme-corp.com/webhooks', code: 'webhook_url_invalid_url' },
  { name: 'bare host without scheme', url: 'hooks.acme-corp.com/webhooks', code: 'webhook_url_invalid_url' },
  { name: 'https with no host', url: 'https://', code: 'webhook_url_invalid_url' },
  { name: 'port beyond 65535', url: 'https://hooks.acme-corp.com:65536/', code: 'webhook_url_invalid_url' },
  { name: 'user and password', url: 'https://user:pw@hooks.acme-corp.com/webhooks', code: 'webhook_url_invalid_url' },
  { name: 'user only', url: 'https://user@hooks.acme-corp.com/webhooks', code: 'webhook_url_invalid_url' },
  { name: 'credentials disguising a loopback host', url: 'https://hooks.acme-corp.com@127.0.0.1/', code: 'webhook_url_invalid_url' },
  { name: 'fragment', url: 'https://hooks.acme-corp.com/webhooks#section', code: 'webhook_url_invalid_url' },
  { name: 'empty fragment', url: 'https://hooks.acme-corp.com/webhooks#', code: 'webhook_url_invalid_url' },
  { name: 'longer than 2048 characters', url: `https://hooks.acme-corp.com/${'a'.repeat(2030)}`, code: 'webhook_url_invalid_url' },
  { name: 'longer than 2048 characters once percent-encoded', url: `https://hooks.acme-corp.com/${'é'.repeat(1000)}`, code: 'webhook_url_invalid_url' },

  // Wrong scheme.
  { name: 'plain http', url: 'http://hooks.acme-corp.com/webhooks', code: 'webhook_url_https_required' },
  { name: 'ftp', url: 'ftp://hooks.acme-corp.com/webhooks', code: 'webhook_url_https_required' },
  { name: 'javascript:', url: 'javascript:alert(document.domain)', code: 'webhook_url_https_required' },
  { name: 'file:', url: 'file:///etc/passwd', code: 'webhook_url_https_required' },
  { name: 'gopher to a local Redis', url: 'gopher://127.0.0.1:6379/_FLUSHALL', code: 'webhook_url_https_required' },

  // Wrong port.
  { name: 'port 80', url: 'https://hooks.acme-corp.com:80/webhooks', code: 'webhook_url_port_not_allowed' },
  { name: 'port 8443', url: 'https://hooks.acme-corp.com:8443/webhooks', code: 'webhook_url_port_not_allowed' },
  { name: 'port 0', url: 'https://hooks.acme-corp.com:0/webhooks', code: 'webhook_url_port_not_allowed' },
  { name: 'port 65535', url: 'https://hooks.acme-corp.com:65535/webhooks', code: 'webhook_url_port_not_allowed' },

  // Literal IPv4, in every spelling the URL parser accepts.
  { name: 'loopback IPv4', url: 'https://127.0.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'loopback IPv4 with a trailing dot', url: 'https://127.0.0.1./webhooks', code: 'webhook_url_blocked_address' },
  { name: 'private 10/8', url: 'https://10.0.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'private 172.16/12', url: 'https://172.16.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'private 192.168/16', url: 'https://192.168.1.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'link-local', url: 'https://169.254.1.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'AWS/GCP/Azure metadata', url: 'https://169.254.169.254/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'Alibaba metadata (CGNAT)', url: 'https://100.100.100.200/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'CGNAT', url: 'https://100.64.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'unspecified 0.0.0.0', url: 'https://0.0.0.0/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'multicast', url: 'https://224.0.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'broadcast', url: 'https://255.255.255.255/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'decimal 127.0.0.1', url: 'https://2130706433/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'octal 127.0.0.1', url: 'https://0177.0.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'hex 127.0.0.1', url: 'https://0x7f.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'short 127.0.0.1', url: 'https://127.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'percent-encoded 127.0.0.1', url: 'https://%31%32%37.0.0.1/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'decimal metadata', url: 'https://2852039166/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'octal metadata', url: 'https://0251.0376.0251.0376/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'hex metadata', url: 'https://0xa9fea9fe/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'short metadata', url: 'https://169.254.43518/latest/meta-data/', code: 'webhook_url_blocked_address' },

  // Literal IPv6.
  { name: 'IPv6 loopback', url: 'https://[::1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv6 unspecified', url: 'https://[::]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv6 link-local', url: 'https://[fe80::1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv6 unique-local fc00::/8', url: 'https://[fc00::1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'AWS IPv6 metadata', url: 'https://[fd00:ec2::254]/latest/meta-data/', code: 'webhook_url_blocked_address' },
  { name: 'IPv6 multicast', url: 'https://[ff02::1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv4-mapped loopback, dotted', url: 'https://[::ffff:127.0.0.1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv4-mapped loopback, hex', url: 'https://[::ffff:7f00:1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv4-mapped public address (mapped forms are never needed)', url: 'https://[::ffff:8.8.8.8]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'IPv4-compatible loopback', url: 'https://[::127.0.0.1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: 'NAT64 of loopback', url: 'https://[64:ff9b::7f00:1]/webhooks', code: 'webhook_url_blocked_address' },
  { name: '6to4 of 10.0.0.1', url: 'https://[2002:a00:1::1]/webhooks', code: 'webhook_url_blocked_address' },

  // A public literal is no DNS name: the design asks for a fully qualified name.
  { name: 'public IPv4 literal', url: `https://${PUBLIC_V4}/webhooks`, code: 'webhook_url_blocked_host' },
  { name: 'public IPv6 literal', url: `https://[${PUBLIC_V6}]/webhooks`, code: 'webhook_url_blocked_host' },

  // Names refused by rule, before DNS.
  { name: 'localhost', url: 'https://localhost/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'LOCALHOST with a trailing dot', url: 'https://LOCALHOST./webhooks', code: 'webhook_url_blocked_host' },
  { name: 'subdomain of localhost', url: 'https://foo.localhost/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'single label', url: 'https://intranet/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'single label with a trailing dot', url: 'https://intranet./webhooks', code: 'webhook_url_blocked_host' },
  { name: 'three slashes (the parser reads the path as a single-label host)', url: 'https:///webhooks', code: 'webhook_url_blocked_host' },
  { name: 'GCP metadata name', url: 'https://metadata.google.internal/computeMetadata/v1/', code: 'webhook_url_blocked_host' },
  { name: 'mDNS .local', url: 'https://printer.local/webhooks', code: 'webhook_url_blocked_host' },
  { name: '.localdomain', url: 'https://db.localdomain/webhooks', code: 'webhook_url_blocked_host' },
  { name: '.home.arpa', url: 'https://router.home.arpa/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'reverse-DNS name', url: 'https://1.0.0.127.in-addr.arpa/webhooks', code: 'webhook_url_blocked_host' },
  { name: '.test', url: 'https://hooks.acme.test/webhooks', code: 'webhook_url_blocked_host' },
  { name: '.onion', url: 'https://abcdefghijklmnop.onion/webhooks', code: 'webhook_url_blocked_host' },
  { name: '.corp', url: 'https://jenkins.acme.corp/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'empty label', url: 'https://hooks..acme-corp.com/webhooks', code: 'webhook_url_blocked_host' },
  { name: 'characters DNS names cannot have', url: 'https://hooks*.acme-corp.com/webhooks', code: 'webhook_url_blocked_host' },

  // Names whose DNS answer is the attack.
  {
    name: 'name resolving to 127.0.0.1',
    url: 'https://loopback.attacker.example.com/webhooks',
    dns: { 'loopback.attacker.example.com': ['127.0.0.1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to 10.x',
    url: 'https://private.attacker.example.com/webhooks',
    dns: { 'private.attacker.example.com': ['10.1.2.3'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to the metadata address',
    url: 'https://metadata.attacker.example.com/latest/meta-data/',
    dns: { 'metadata.attacker.example.com': ['169.254.169.254'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to ::1',
    url: 'https://v6-loopback.attacker.example.com/webhooks',
    dns: { 'v6-loopback.attacker.example.com': ['::1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to ::ffff:127.0.0.1',
    url: 'https://mapped.attacker.example.com/webhooks',
    dns: { 'mapped.attacker.example.com': ['::ffff:127.0.0.1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to fd00::1',
    url: 'https://ula.attacker.example.com/webhooks',
    dns: { 'ula.attacker.example.com': ['fd00::1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to 0.0.0.0',
    url: 'https://zero.attacker.example.com/webhooks',
    dns: { 'zero.attacker.example.com': ['0.0.0.0'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to 100.100.100.200',
    url: 'https://alibaba.attacker.example.com/webhooks',
    dns: { 'alibaba.attacker.example.com': ['100.100.100.200'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'name resolving to NAT64 of loopback',
    url: 'https://nat64.attacker.example.com/webhooks',
    dns: { 'nat64.attacker.example.com': ['64:ff9b::7f00:1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'public and private answers',
    url: 'https://mixed.attacker.example.com/webhooks',
    dns: { 'mixed.attacker.example.com': [PUBLIC_V4, '10.0.0.5'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'private IPv6 beside a public IPv4',
    url: 'https://mixed6.attacker.example.com/webhooks',
    dns: { 'mixed6.attacker.example.com': [PUBLIC_V4, 'fd00::1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'answer that is not an address',
    url: 'https://garbage.attacker.example.com/webhooks',
    dns: { 'garbage.attacker.example.com': ['not-an-ip'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'trailing-dot name resolving to loopback',
    url: 'https://rebind.attacker.example.com./webhooks',
    dns: { 'rebind.attacker.example.com': ['127.0.0.1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'upper-case name resolving to loopback',
    url: 'https://LOOPBACK.Attacker.Example.COM/webhooks',
    dns: { 'loopback.attacker.example.com': ['127.0.0.1'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'IDN name resolving to a private address',
    url: 'https://bücher.attacker.example.com/webhooks',
    dns: { 'xn--bcher-kva.attacker.example.com': ['192.168.0.10'] },
    code: 'webhook_url_blocked_address',
  },
  {
    name: 'wildcard-DNS service spelling an IP in the name',
    url: 'https://127.0.0.1.nip.io/webhooks',
    dns: { '127.0.0.1.nip.io': ['127.0.0.1'] },
    code: 'webhook_url_blocked_address',
  },

  // DNS that cannot vouch for the name.
  { name: 'NXDOMAIN', url: 'https://gone.acme-corp.com/webhooks', dns: { 'gone.acme-corp.com': 'nxdomain' }, code: 'webhook_url_dns_failed' },
  { name: 'SERVFAIL', url: 'https://broken.acme-corp.com/webhooks', dns: { 'broken.acme-corp.com': 'servfail' }, code: 'webhook_url_dns_failed' },
  {
    name: 'name with no A or AAAA records',
    url: 'https://mail-only.acme-corp.com/webhooks',
    dns: { 'mail-only.acme-corp.com': [] },
    code: 'webhook_url_dns_failed',
  },
];

export const ALLOWED_URL_CASES: AllowedUrlCase[] = [
  { name: 'public IPv4', url: 'https://hooks.acme-corp.com/webhooks', dns: { 'hooks.acme-corp.com': [PUBLIC_V4] }, address: PUBLIC_V4 },
  { name: 'public IPv6 only', url: 'https://v6.acme-corp.com/webhooks', dns: { 'v6.acme-corp.com': [PUBLIC_V6] }, address: PUBLIC_V6 },
  {
    name: 'both families: IPv4 preferred',
    url: 'https://dual.acme-corp.com/webhooks',
    dns: { 'dual.acme-corp.com': [PUBLIC_V6, PUBLIC_V4] },
    address: PUBLIC_V4,
  },
  {
    name: 'explicit :443 with a path and a query',
    url: 'https://hooks.acme-corp.com:443/v1/events?tenant=42&kind=all',
    dns: { 'hooks.acme-corp.com': [PUBLIC_V4] },
    address: PUBLIC_V4,
    normalised: 'https://hooks.acme-corp.com/v1/events?tenant=42&kind=all',
  },
  {
    name: 'upper-case scheme and host',
    url: 'HTTPS://Hooks.ACME-Corp.com/Webhooks',
    dns: { 'hooks.acme-corp.com': [PUBLIC_V4] },
    address: PUBLIC_V4,
    normalised: 'https://hooks.acme-corp.com/Webhooks',
  },
  { name: 'trailing dot', url: 'https://hooks.acme-corp.com./webhooks', dns: { 'hooks.acme-corp.com': [PUBLIC_V4] }, address: PUBLIC_V4 },
  {
    name: 'NAT64 of a public address',
    url: 'https://nat64.acme-corp.com/webhooks',
    dns: { 'nat64.acme-corp.com': ['64:ff9b::808:808'] },
    address: '64:ff9b::808:808',
  },
  {
    name: 'name under example.com (only the .example TLD is reserved)',
    url: 'https://hooks.attacker.example.com/webhooks',
    dns: { 'hooks.attacker.example.com': ['1.1.1.1'] },
    address: '1.1.1.1',
  },
];
