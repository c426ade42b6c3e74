import { blockedAddressReason } from './blocked-addresses';

describe('blockedAddressReason', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['100.100.100.200', 'cloud metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF protocol assignment'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses IPv4 %s (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('lets public IPv4 %s through', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });

  it.each([
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::FFFF:A00:1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::808:808', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64 of a loopback address'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of a cloud metadata address'],
    ['64:ff9b:1::1', 'local NAT64'],
    ['64:ff9b:1:ffff::8.8.8.8', 'local NAT64'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['3fff:fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2002:a00:1::1', '6to4 of a private address'],
    ['2002:7f00:1::', '6to4 of a loopback address'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['1::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['fbff::1', 'reserved'],
  ])('refuses IPv6 %s (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    '2606:2800:21f:cb07:6820:80da:af6b:1a6f',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:1::1:2',
    '3fff:1000::1',
    '2001:db9::1',
  ])('lets public IPv6 %s through', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });

  // DNS hands back canonical literals; any other spelling means something is off, so it is refused.
  it.each([
    '',
    ' ',
    'localhost',
    'example.com',
    '127.1',
    '2130706433',
    '0177.0.0.1',
    '010.0.0.1',
    '0x7f.0.0.1',
    '1.2.3.4 ',
    '1.2.3',
    '256.1.1.1',
    '[::1]',
    'fe80::1%eth0',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:127.1',
  ])('refuses the unreadable %j', (address) => {
    expect(blockedAddressReason(address)).toBe('not an IP address');
  });

  it('refuses what is not a string at all', () => {
    expect(blockedAddressReason(undefined as unknown as string)).toBe('not an IP address');
    expect(blockedAddressReason(2130706433 as unknown as string)).toBe('not an IP address');
  });
});
