import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestOrigin, wellFormedHost, type Reached } from './request-origin.ts';
import { trustedRanges } from './rate-limit/client-ip.ts';

const hosts: Array<[string | undefined, boolean]> = [
  ['pets.example', true],
  ['pets.example:8443', true],
  ['127.0.0.1:3000', true],
  ['[::1]:3000', true],
  ['[2001:db8::7]', true],
  ['localhost', true],
  ['pets.example:0', false],
  ['pets.example:65536', false],
  ['[not-v6]:80', false],
  ['pets example', false],
  ['pets.example/v1', false],
  ['user@pets.example', false],
  ['-pets.example', false],
  ['', false],
  [undefined, false],
  [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`, false],
];
for (const [host, ok] of hosts) {
  test(`Host ${JSON.stringify(host)} is ${ok ? '' : 'not '}believed`, () => assert.is(wellFormedHost(host), ok ? host : undefined));
}

const RULES = { trustProxy: false as const, trustProxyHeader: 'x-forwarded-for' as const, fallback: 'http://0.0.0.0:3000' };
const at = (headers: Reached['headers'], local: Reached['local'] = {}, peer = '192.0.2.1'): Reached => ({ headers, peer, local });

const origins: Array<[string, Reached, Parameters<typeof requestOrigin>[1], string]> = [
  ['the Host sent', at({ host: 'pets.example:3000' }, { address: '10.0.0.2', port: 3000 }), RULES, 'http://pets.example:3000'],
  ['no Host (HTTP/1.0): the local end of the connection', at({}, { address: '10.0.0.2', port: 3000 }), RULES, 'http://10.0.0.2:3000'],
  [
    'a garbled Host: the local end, IPv4-mapped written as IPv4',
    at({ host: 'a b' }, { address: '::ffff:10.0.0.2', port: 3000 }),
    RULES,
    'http://10.0.0.2:3000',
  ],
  ['no Host on an IPv6 connection', at({}, { address: 'fe80::1%eth0', port: 3000 }), RULES, 'http://[fe80::1]:3000'],
  ['nothing at all (an injected request): the listener', at({}), RULES, 'http://0.0.0.0:3000'],
  [
    'a trusted proxy by range: its X-Forwarded-Host and -Proto',
    at({ host: 'backend:3000', 'x-forwarded-host': 'api.example.org', 'x-forwarded-proto': 'https' }, {}, '10.1.2.3'),
    { ...RULES, trustProxy: ['10.0.0.0/8'], ranges: trustedRanges(['10.0.0.0/8']) },
    'https://api.example.org',
  ],
  [
    'a peer outside the range: its forwarding headers are not believed',
    at({ host: 'backend:3000', 'x-forwarded-host': 'api.example.org' }, {}, '192.0.2.1'),
    { ...RULES, trustProxy: ['10.0.0.0/8'], ranges: trustedRanges(['10.0.0.0/8']) },
    'http://backend:3000',
  ],
  [
    'a garbled forwarded host: the Host',
    at({ host: 'backend:3000', 'x-forwarded-host': 'api.example.org, <script>', 'x-forwarded-proto': 'https' }),
    { ...RULES, trustProxy: 1 },
    'https://backend:3000',
  ],
];
for (const [name, reached, rules, origin] of origins) {
  test(`origin: ${name}`, () => assert.is(requestOrigin(reached, rules), origin));
}

test.run();
