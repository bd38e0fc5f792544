import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientAddress, ipPartitionId, isLoopback, type ForwardingHeader, type TrustProxy } from './client-ip.ts';

const cases: Array<[string | undefined, string]> = [
  ['127.0.0.1', '127.0.0.1'],
  ['203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['::1', '0:0:0:0::/64'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
  ['2001:DB8:0001:0002::9', '2001:db8:1:2::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  [undefined, 'unknown'],
  ['not an address', 'unknown'],
];

for (const [address, expected] of cases) {
  test(`${String(address)} is counted as ${expected}`, () => {
    assert.is(ipPartitionId(address), expected);
  });
}

// This machine: the addresses the developer's own tools come from (limiter.ts spares them blocks).
const loopback: Array<[string | undefined, boolean]> = [
  ['127.0.0.1', true],
  ['127.8.9.10', true],
  ['::1', true],
  ['0:0:0:0:0:0:0:1', true],
  ['::ffff:127.0.0.1', true],
  ['::1%lo', true],
  ['128.0.0.1', false],
  ['10.0.0.1', false],
  ['::', false],
  ['::2', false],
  ['::ffff:203.0.113.7', false],
  ['fe80::1', false],
  ['127.0.0.1.example', false],
  [undefined, false],
];
for (const [address, expected] of loopback) {
  test(`${String(address)} is ${expected ? '' : 'not '}loopback`, () => assert.is(isLoopback(address), expected));
}

type Headers = Record<string, string>;
const XFF: ForwardingHeader = 'x-forwarded-for';
const FWD: ForwardingHeader = 'forwarded';
const behind: Array<[string, string, Headers, TrustProxy, ForwardingHeader, string]> = [
  [
    'no trust: the socket peer, whatever the headers say',
    '10.0.0.5',
    { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=203.0.113.7' },
    false,
    XFF,
    '10.0.0.5',
  ],
  ['one hop: the address the proxy added', '10.0.0.5', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }, 1, XFF, '203.0.113.7'],
  ['two hops', '10.0.0.5', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.9' }, 2, XFF, '203.0.113.7'],
  ['more hops than entries: the leftmost', '10.0.0.5', { 'x-forwarded-for': '203.0.113.7' }, 5, XFF, '203.0.113.7'],
  [
    'ranges: skip every trusted proxy from the right',
    '10.0.0.5',
    { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.9' },
    ['10.0.0.0/8'],
    XFF,
    '203.0.113.7',
  ],
  ['ranges: a spoofed leftmost entry is never reached', '10.0.0.5', { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' }, ['10.0.0.0/8'], XFF, '203.0.113.7'],
  ['ranges: an untrusted peer is the client', '192.0.2.44', { 'x-forwarded-for': '203.0.113.7' }, ['10.0.0.0/8'], XFF, '192.0.2.44'],
  ['ranges: IPv6 proxies', '::1', { 'x-forwarded-for': '2001:db8::7' }, ['::1', 'fd00::/8'], XFF, '2001:db8::7'],
  [
    'X-Forwarded-For chosen: a Forwarded the client wrote is never read',
    '10.0.0.5',
    { forwarded: 'for=198.51.100.1', 'x-forwarded-for': '203.0.113.7' },
    1,
    XFF,
    '203.0.113.7',
  ],
  ['X-Forwarded-For chosen, none written: the proxy, not the Forwarded the client wrote', '10.0.0.5', { forwarded: 'for=198.51.100.1' }, 1, XFF, '10.0.0.5'],
  [
    'Forwarded chosen: an X-Forwarded-For the client wrote is never read',
    '10.0.0.5',
    { forwarded: 'for=203.0.113.7;proto=https', 'x-forwarded-for': '198.51.100.1' },
    1,
    FWD,
    '203.0.113.7',
  ],
  ['Forwarded chosen, none written: the proxy', '10.0.0.5', { 'x-forwarded-for': '198.51.100.1' }, 1, FWD, '10.0.0.5'],
  ['Forwarded with a port and an IPv6 node', '10.0.0.5', { forwarded: 'for="[2001:db8::7]:4711", for=203.0.113.7:80' }, 2, FWD, '2001:db8::7'],
  ['garbage where the client should be: counted against the proxy', '10.0.0.5', { 'x-forwarded-for': 'not-an-address' }, 1, XFF, '10.0.0.5'],
  ['an obfuscated Forwarded node: counted against the proxy', '10.0.0.5', { forwarded: 'for=_hidden' }, 1, FWD, '10.0.0.5'],
  ['no header behind a trusted proxy: the proxy', '10.0.0.5', {}, 1, XFF, '10.0.0.5'],
];
for (const [name, peer, headers, trust, header, expected] of behind) {
  test(`client address, ${name}`, () => {
    assert.is(clientAddress(peer, headers, trust, header), expected);
  });
}

test.run();
