// The limiter service on its own: no server, requests as the few fields of hapi's request it
// reads, memory counters on a manual clock (or counters that answer later, as Redis does).
// Through the whole server: plugins/rate-limit.test.ts and plugins/faults.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Request } from '@hapi/hapi';
import { ManualClock } from '../clock.ts';
import { errorBody } from '../errors.ts';
import { KeyRing } from '../keys.ts';
import { resolveOptions, type RateLimitOptions } from '../options.ts';
import { petsVersionOf } from '../pets/version.ts';
import { AUTH_STRATEGY } from '../plugins/auth.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import { MemoryCounters } from './memory-counters.ts';
import type { ConsumeRequest, ConsumeResult, Counters } from './counters.ts';
import type { Verdict } from './decision.ts';
import type { TrustProxy } from './client-ip.ts';

const START = Date.UTC(2026, 0, 1, 9, 0, 0);
const TINY = 'tiny-plan-key';
const keys = new KeyRing([{ key: TINY, plan: 'tiny', limits: { perMinute: 2, perDay: 5 } }], { tiny: 'custom' });
const tiny = keys.lookup(TINY)!;

interface Shape {
  method?: string;
  address?: string;
  /** 'key': authenticated with the tiny key; 'admin': with the admin token; a string: carried only. */
  auth?: 'key' | 'admin' | string;
  route?: false | 'admin';
  forwardedFor?: string;
}

/** The fields of a hapi request the limiter reads. */
function request({ method = 'get', address = '192.0.2.1', auth, route, forwardedFor }: Shape = {}): Request {
  const authenticated = auth === 'key' || auth === 'admin';
  const token = auth === 'key' ? TINY : auth === 'admin' ? 'admin-token' : auth;
  return {
    method,
    info: { remoteAddress: address },
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    route: { settings: { plugins: route === undefined ? {} : { 'rate-limit': route } } },
    auth: { isAuthenticated: authenticated, strategy: auth === 'key' ? AUTH_STRATEGY : 'admin-token', credentials: auth === 'key' ? tiny : { admin: true } },
    plugins: {},
  } as unknown as Request;
}

/** Memory counters seen from outside: every call recorded, answered now or (`later`) as Redis would. */
class Spy implements Counters {
  readonly inner: MemoryCounters;
  readonly calls: ConsumeRequest[][] = [];
  later = false;
  carried: ConsumeResult['carried'];
  connected = true;
  constructor(clock: ManualClock) {
    this.inner = new MemoryCounters(clock);
  }
  consume = (r: ConsumeRequest) => this.inner.consume(r);
  consumeAll(requests: readonly ConsumeRequest[]) {
    this.calls.push([...requests]);
    const results = this.inner.consumeAll(requests).map((r) => (this.carried ? { ...r, carried: this.carried } : r));
    return this.later ? Promise.resolve(results) : results;
  }
  connect = async () => this.connected;
  sharedRedis = () => undefined;
  reset = () => this.inner.reset();
  advance = (ms: number) => this.inner.advance(ms);
  close = () => this.inner.close();
}

function setup(rateLimit: RateLimitOptions = {}, trustProxy: TrustProxy = 1) {
  const clock = new ManualClock(START);
  const counters = new Spy(clock);
  const logged: string[] = [];
  const options = resolveOptions({ rateLimit: { ip: { perMinute: 3 }, ban: { threshold: 3 }, ...rateLimit } });
  const limiter = createLimiter({
    rateLimit: options.rateLimit,
    trustProxy,
    trustProxyHeader: 'x-forwarded-for',
    clock,
    keys,
    counters,
    log: (level, message) => logged.push(`${level}: ${message}`),
  });
  return { clock, counters, limiter, logged };
}

/** The verdict, whether the counters answered now or later. */
const settled = async (value: Verdict | Promise<Verdict> | undefined) => value && (await value);
const remaining = (v: Verdict | undefined) => v?.headers['x-ratelimit-remaining'];

// ---------------------------------------------------------------------------------------------
const decide = suite('which requests are decided where, and against what');

type Step = 'admit' | 'settle';
const table: Array<[string, Shape, Step, { decided: boolean; partitions?: string[]; costs?: number[] }]> = [
  [
    'a key request, after auth: its address probed, its key counted',
    { auth: 'key' },
    'admit',
    { decided: true, partitions: ['ip:192.0.2.1', `key:${tiny.keyId}`], costs: [0, 1] },
  ],
  ['a request without a key is not decided after auth', {}, 'admit', { decided: false }],
  ['an exempt route is never decided', { auth: 'key', route: false }, 'admit', { decided: false }],
  ['an exempt route is never decided, as it ends either', { route: false }, 'settle', { decided: false }],
  ['a preflight (OPTIONS) is never decided', { method: 'options', auth: 'key' }, 'settle', { decided: false }],
  [
    'an admin-token call: its admin partition probed, nothing counted',
    { auth: 'admin', route: 'admin' },
    'admit',
    { decided: true, partitions: ['admin:192.0.2.1'], costs: [0] },
  ],
  ['a 401 as it ends: counted against the address', { auth: 'not-a-key-123' }, 'settle', { decided: true, partitions: ['ip:192.0.2.1'], costs: [1] }],
  [
    'an unknown path with a valid key carried: counted against the key',
    { auth: TINY },
    'settle',
    { decided: true, partitions: ['ip:192.0.2.1', `key:${tiny.keyId}`], costs: [0, 1] },
  ],
  [
    'a failed admin attempt carrying an API key: counted against the admin partition',
    { auth: TINY, route: 'admin' },
    'settle',
    { decided: true, partitions: ['admin:192.0.2.1'], costs: [1] },
  ],
  [
    'behind one trusted proxy: the forwarded address',
    { auth: 'not-a-key-123', address: '10.0.0.1', forwardedFor: '198.51.100.9' },
    'settle',
    { decided: true, partitions: ['ip:198.51.100.9'], costs: [1] },
  ],
  [
    'a key request from this machine: no address gate, its key counted',
    { auth: 'key', address: '127.0.0.1' },
    'admit',
    { decided: true, partitions: [`key:${tiny.keyId}`], costs: [1] },
  ],
  [
    'a key request from a client behind a proxy on this machine: the client gated as any address',
    { auth: 'key', address: '127.0.0.1', forwardedFor: '198.51.100.9' },
    'admit',
    { decided: true, partitions: ['ip:198.51.100.9', `key:${tiny.keyId}`], costs: [0, 1] },
  ],
  [
    'an admin-token call from this machine: admitted without asking the counters',
    { auth: 'admin', route: 'admin', address: '::1' },
    'admit',
    { decided: true, partitions: [] },
  ],
  [
    'a 401 from this machine: still counted against its address',
    { auth: 'not-a-key-123', address: '::1' },
    'settle',
    { decided: true, partitions: ['ip:0:0:0:0::/64'], costs: [1] },
  ],
];
for (const [name, shape, step, expected] of table) {
  decide(name, async () => {
    const { limiter, counters } = setup();
    const req = request(shape);
    const decided = await settled(limiter[step](req));
    assert.is(decided !== undefined, expected.decided);
    assert.is(limiter.verdictOf(req), decided, 'the verdict is the request state');
    if (!expected.decided || expected.partitions?.length === 0) return assert.is(counters.calls.length, 0);
    assert.is(counters.calls.length, 1, 'one call to the counters per request');
    assert.equal(
      counters.calls[0]!.map((r) => r.partition),
      expected.partitions,
    );
    assert.equal(
      counters.calls[0]!.map((r) => r.cost),
      expected.costs,
    );
  });
}

// No trusted proxy: the partition is found by the socket peer alone, cached by it (limiter.ts).
const bySocket: Array<[string, Shape[], string[]]> = [
  ['one IPv4 peer, asked twice: one partition', [{ address: '192.0.2.7' }, { address: '192.0.2.7' }], ['ip:192.0.2.7', 'ip:192.0.2.7']],
  ['an IPv4-mapped IPv6 peer is its IPv4 address', [{ address: '::ffff:192.0.2.7' }], ['ip:192.0.2.7']],
  [
    'two peers of one IPv6 /64: two cache entries, one partition',
    [{ address: '2001:db8:1:2::5' }, { address: '2001:db8:1:2:ffff::9' }],
    ['ip:2001:db8:1:2::/64', 'ip:2001:db8:1:2::/64'],
  ],
  ['a forwarding header is never read', [{ address: '192.0.2.7', forwardedFor: '198.51.100.9' }], ['ip:192.0.2.7']],
  [
    'the same peer on the admin API: its own partition, then the API one again',
    [{ address: '192.0.2.7', route: 'admin' }, { address: '192.0.2.7' }],
    ['admin:192.0.2.7', 'ip:192.0.2.7'],
  ],
];
for (const [name, shapes, partitions] of bySocket) {
  decide(`no trusted proxy: ${name}`, async () => {
    const { limiter, counters } = setup({}, false);
    for (const shape of shapes) await settled(limiter.settle(request({ auth: 'not-a-key-123', ...shape })));
    assert.equal(
      counters.calls.map((call) => call[0]!.partition),
      partitions,
    );
  });
}

decide('a request decided after auth is not decided (or counted) again as it ends', async () => {
  const { limiter, counters } = setup();
  const req = request({ auth: 'key' });
  const first = await settled(limiter.admit(req));
  assert.is(await settled(limiter.settle(req)), first);
  assert.is(limiter.admit(req), undefined);
  assert.is(counters.calls.length, 1);
});

decide('the counters asked for the same partition get the same requests: nothing is made per request', async () => {
  const { limiter, counters } = setup();
  await settled(limiter.admit(request({ auth: 'key' })));
  await settled(limiter.admit(request({ auth: 'key' })));
  assert.is(counters.calls[0]![0], counters.calls[1]![0]);
  assert.is(counters.calls[0]![1], counters.calls[1]![1]);
});

decide('memory counters answer at once: no promise on the hot path; counters that answer later give the same verdict', async () => {
  const now = setup();
  const sync = now.limiter.admit(request({ auth: 'key' }));
  assert.not.instance(sync, Promise);
  const later = setup();
  later.counters.later = true;
  const async = later.limiter.admit(request({ auth: 'key' }));
  assert.instance(async, Promise);
  assert.equal(await async, sync);
});

decide("what rode on the round trip is noted on the request: the pets' version", async () => {
  const { limiter, counters } = setup();
  counters.carried = [7, 3];
  const req = request({ auth: 'key' });
  await settled(limiter.admit(req));
  assert.equal(petsVersionOf(req), { version: 7, epoch: 3 });
  const without = setup();
  const other = request({ auth: 'key' });
  await settled(without.limiter.admit(other));
  assert.is(petsVersionOf(other), undefined);
});

decide.run();

// ---------------------------------------------------------------------------------------------
const limits = suite('limits, headers and refusals');

limits('a key: its minute allowance, then 429 with Retry-After until its window ends (manual clock)', async () => {
  const { limiter, clock } = setup();
  const admit = () => settled(limiter.admit(request({ auth: 'key' })));
  assert.equal([remaining(await admit()), remaining(await admit())], ['1', '0']);
  const refused = (await admit())!;
  assert.not.ok(refused.admitted);
  assert.is(refused.error?.code, 'rate_limited_minute');
  assert.is(refused.headers['retry-after'], '60');
  clock.advance(60_000);
  assert.ok((await admit())!.admitted);
});

limits('repeated refusals ban the key: its third refusal starts the ban (threshold 3)', async () => {
  const { limiter } = setup();
  const admit = () => settled(limiter.admit(request({ auth: 'key' })));
  const codes: Array<string | undefined> = [];
  for (let i = 0; i < 6; i++) codes.push((await admit())!.error?.code);
  assert.equal(codes, [undefined, undefined, 'rate_limited_minute', 'rate_limited_minute', 'key_banned', 'key_banned']);
});

limits('an address blocked for requests without a key refuses its valid key too', async () => {
  const { limiter } = setup();
  for (let i = 0; i < 3; i++) assert.ok((await settled(limiter.settle(request({ auth: 'not-a-key-123' }))))!.admitted);
  const keyed = (await settled(limiter.admit(request({ auth: 'key' }))))!;
  assert.is(keyed.error?.code, 'rate_limited_ip');
});

// This machine (loopback) is spared what locks a network address out: its block, and the refusal
// of its valid key while it is over its allowance. --ip-ban-loopback restores both.
const ALLOWED = ['', '', ''];
const loopback: Array<[string, boolean, TrustProxy, Shape, string[], string | undefined]> = [
  ['127.0.0.1, the defaults', false, false, { address: '127.0.0.1' }, [...ALLOWED, 'rate_limited_ip', 'rate_limited_ip', 'rate_limited_ip'], undefined],
  [
    '::1 behind a trusted proxy that forwarded nothing',
    false,
    1,
    { address: '::1' },
    [...ALLOWED, 'rate_limited_ip', 'rate_limited_ip', 'rate_limited_ip'],
    undefined,
  ],
  ['127.0.0.1 with --ip-ban-loopback', true, false, { address: '127.0.0.1' }, [...ALLOWED, 'rate_limited_ip', 'rate_limited_ip', 'ip_blocked'], 'ip_blocked'],
  [
    'a network client forwarded by a proxy on this machine',
    false,
    1,
    { address: '127.0.0.1', forwardedFor: '198.51.100.9' },
    [...ALLOWED, 'rate_limited_ip', 'rate_limited_ip', 'ip_blocked'],
    'ip_blocked',
  ],
];
for (const [name, banLoopback, trust, from, codes, keyed] of loopback) {
  limits(`six requests without a key, then a valid key: ${name}`, async () => {
    const { limiter } = setup({ ip: { perMinute: 3, ban: { threshold: 3 }, banLoopback } }, trust);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push((await settled(limiter.settle(request({ auth: 'not-a-key-123', ...from }))))!.error?.code ?? '');
    assert.equal(seen, codes);
    assert.is((await settled(limiter.admit(request({ auth: 'key', ...from }))))!.error?.code, keyed);
  });
}

limits('the admin token: its calls carry no rate-limit headers unless refused', async () => {
  const { limiter } = setup();
  const req = request({ auth: 'admin', route: 'admin' });
  const admitted = (await settled(limiter.admit(req)))!;
  assert.is(limiter.headersFor(req, admitted), undefined);
  const api = request({ auth: 'key' });
  const counted = (await settled(limiter.admit(api)))!;
  assert.is(limiter.headersFor(api, counted), counted.headers);
});

limits('the one 429: the Error body, Retry-After and every rate-limit header of the verdict', async () => {
  const { limiter } = setup();
  for (let i = 0; i < 2; i++) await settled(limiter.admit(request({ auth: 'key' })));
  const refused = (await settled(limiter.admit(request({ auth: 'key' }))))!;
  const error = limiter.refusal(refused);
  assert.is(error.output.statusCode, 429);
  assert.equal(errorBody(error), { status: 429, code: 'rate_limited_minute', message: refused.error!.message });
  for (const name of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy', 'cache-control']) {
    assert.is(error.output.headers[name], refused.headers[name], name);
  }
});

limits.run();

// ---------------------------------------------------------------------------------------------
const faults = suite('a refusal asked for (the faults plugin)');

const asked: Array<[string, (l: Limiter) => Promise<unknown>, { code: string; injected: boolean; remaining: string }]> = [
  ['a key with room: its first window shown exhausted, injected', async () => {}, { code: 'rate_limited_minute', injected: true, remaining: '0' }],
  [
    'a key already over its limit: its real 429, not injected',
    async (l) => {
      for (let i = 0; i < 2; i++) await settled(l.admit(request({ auth: 'key' })));
    },
    { code: 'rate_limited_minute', injected: false, remaining: '0' },
  ],
  [
    'an address already blocked: its refusal, not injected',
    async (l) => {
      for (let i = 0; i < 3; i++) await settled(l.settle(request({ auth: 'not-a-key-123' })));
    },
    { code: 'rate_limited_ip', injected: false, remaining: '0' },
  ],
];
for (const [name, before, expected] of asked) {
  faults(name, async () => {
    const { limiter } = setup();
    await before(limiter);
    const req = request({ auth: 'key' });
    const { error, injected } = await limiter.refusalFor(req, tiny);
    assert.is(error.output.statusCode, 429);
    assert.is(errorBody(error).code, expected.code);
    assert.is(injected, expected.injected);
    assert.is(error.output.headers['x-ratelimit-remaining'], expected.remaining);
    assert.ok(limiter.verdictOf(req), 'decided as the request verdict: not counted again as it ends');
  });
}

faults('from this machine over its keyless allowance: the key is not refused for it, so the 429 is injected', async () => {
  const { limiter, counters } = setup();
  for (let i = 0; i < 3; i++) await settled(limiter.settle(request({ auth: 'not-a-key-123', address: '127.0.0.1' })));
  const { error, injected } = await limiter.refusalFor(request({ auth: 'key', address: '127.0.0.1' }), tiny);
  assert.is(errorBody(error).code, 'rate_limited_minute');
  assert.ok(injected);
  assert.equal(
    counters.calls.at(-1)!.map((r) => [r.partition, r.cost]),
    [[`key:${tiny.keyId}`, 0]],
  );
});

faults('an injected 429 counts nothing', async () => {
  const { limiter } = setup();
  await limiter.refusalFor(request({ auth: 'key' }), tiny);
  assert.is(remaining(await settled(limiter.admit(request({ auth: 'key' })))), '1');
});

faults('rate limiting off: nothing decided, and an injected 429 is the plain one, without rate-limit headers', async () => {
  const { limiter } = setup({ enabled: false });
  const req = request({ auth: 'key' });
  assert.is(limiter.counters, undefined);
  assert.is(limiter.admit(req), undefined);
  assert.is(limiter.settle(req), undefined);
  const { error, injected } = await limiter.refusalFor(req, tiny);
  assert.ok(injected);
  assert.is(errorBody(error).code, 'rate_limited_minute');
  assert.equal(error.output.headers, { 'retry-after': '60' });
});

faults.run();

// ---------------------------------------------------------------------------------------------
const life = suite('start and close');

life('counters that are not there at start are logged, not fatal; ones that are say nothing', async () => {
  const absent = setup();
  absent.counters.connected = false;
  await absent.limiter.start();
  assert.equal(absent.logged, ['warn: Redis unreachable at start: limiting per instance in memory until it answers']);
  const present = setup();
  await present.limiter.start();
  assert.equal(present.logged, []);
});

life.run();
