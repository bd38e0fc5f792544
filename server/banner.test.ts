import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitLines, redactUrl, startBanner } from './banner.ts';
import { resolveOptions, type ServerOptions } from './options.ts';
import { createServer } from './server.ts';

const DEFAULT_IP = '  without a valid key: 30 requests a minute per client address, blocked 600 s after 20 refusals within 60 s';
const KEYS = "per key its plan's minute and day limits, banned 600 s after 20 refusals within 60 s";

const cases: Array<[string, ServerOptions, string[]]> = [
  [
    'the defaults: loopback is never blocked, and the banner names the flag that changes it',
    {},
    [`  rate limits: per instance, in memory; ${KEYS}`, `${DEFAULT_IP}; loopback (this machine) is never blocked (--ip-ban-loopback)`],
  ],
  [
    '--ip-ban-loopback',
    { rateLimit: { ip: { banLoopback: true } } },
    [`  rate limits: per instance, in memory; ${KEYS}`, `${DEFAULT_IP}; loopback (this machine) too`],
  ],
  [
    'bans and blocks turned off, another allowance',
    { rateLimit: { ban: { threshold: 0 }, ip: { perMinute: 5, ban: { threshold: 0 } } } },
    [
      "  rate limits: per instance, in memory; per key its plan's minute and day limits, never banned",
      '  without a valid key: 5 requests a minute per client address, never blocked',
    ],
  ],
  [
    'Redis, its password hidden, behind one trusted proxy',
    { redisUrl: 'redis://user:pw-secret@10.0.0.2:6379', trustProxy: 1 },
    [
      `  rate limits: shared through Redis redis://user:***@10.0.0.2:6379; ${KEYS}`,
      '  without a valid key: 30 requests a minute per client address (from X-Forwarded-For behind 1 trusted proxy), blocked 600 s after 20 refusals within 60 s; loopback (this machine) is never blocked (--ip-ban-loopback)',
    ],
  ],
  [
    'proxies named by their range, with Forwarded',
    { trustProxy: ['10.0.0.0/8', '::1'], trustProxyHeader: 'forwarded', rateLimit: { ip: { banLoopback: true } } },
    [
      `  rate limits: per instance, in memory; ${KEYS}`,
      `${DEFAULT_IP.replace('address', 'address (from Forwarded behind trusted proxies 10.0.0.0/8,::1)')}; loopback (this machine) too`,
    ],
  ],
  ['--no-rate-limit', { rateLimit: { enabled: false } }, ['  rate limits: off (--no-rate-limit): no limit, ban or block, and no rate-limit headers']],
];
for (const [name, options, expected] of cases) {
  test(`banner, ${name}`, () => assert.equal(limitLines(resolveOptions(options)), expected));
}

test('a URL is shown without its password; one that does not parse is not shown at all', () => {
  assert.is(redactUrl('postgres://kit:s3cret@127.0.0.1:5432/pets'), 'postgres://kit:***@127.0.0.1:5432/pets');
  assert.is(redactUrl('not a url s3cret'), '(unparsable URL)');
});

test('the whole banner: where it listens, its store, the faults a request may ask for, the admin API, the keys', async () => {
  const server = await createServer({ port: 0, logger: false, faults: true, adminToken: 'banner-admin-token' });
  try {
    const lines = (await startBanner(server)).split('\n');
    assert.is(lines[0], `Animal Adoption Store reference server listening on ${server.info.uri}/v1`);
    assert.match(lines[2]!, /^ {2}store: memory \(nothing is written\) \(\d+ pets\)$/);
    assert.ok(
      lines.includes('  fault injection: on (Prefer: code=<any status the operation documents, or 429|500|503>, example=<name>, delay=<ms>)'),
      lines.join('\n'),
    );
    assert.ok(lines.includes(`  admin API: ${server.info.uri}/__admin (Authorization: Bearer <admin token>)`));
    // Issue 39: the live view's address, with the token left for the user to put in its fragment.
    assert.ok(lines.includes(`  live view of the clients: ${server.info.uri}/__admin/live#token=<admin token>`), lines.join('\n'));
    assert.not.ok(
      lines.some((l) => l.includes('banner-admin-token')),
      'the admin token is never printed',
    );
    assert.ok(lines.includes('  API keys by plan (send "Authorization: Bearer <key>"):'));
  } finally {
    await server.stop();
  }
});

test.run();
