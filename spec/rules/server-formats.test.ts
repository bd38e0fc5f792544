// The reference server formats its headers with spec/rules, and the parsers read back exactly what
// it sends: so the kit and the k6 scripts read what the server writes. Driven through the server's
// own functions and routes, with the bytes pinned so that a change of form is a visible decision.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock, createServer } from '../../server/index.ts';
import { deprecationHeaders } from '../../server/plugins/deprecation.ts';
import { formatPolicy, formatState } from '../../server/rate-limit/decision.ts';
import { keyWindows } from '../../server/rate-limit/policy.ts';
import { BASE_PATH, DEPRECATIONS } from './contract.js';
import { formatDeprecation, formatSunset, parseDeprecation, parseSunset } from './fields.js';
import { formatLinks, parseLinks } from './link.js';
import { formatRateLimit, formatRateLimitPolicy, parseRateLimit, parseRateLimitPolicy } from './structured-fields.js';

const NOW = Date.UTC(2026, 0, 1);

test('RateLimit-Policy: formatRateLimitPolicy equals the server formatPolicy, and parses back', () => {
  for (const limits of [
    { perMinute: 60, perDay: 1000 },
    { perMinute: 100_000, perDay: 100_000_000 },
  ]) {
    const windows = keyWindows(limits);
    const server = formatPolicy(windows);
    assert.is(formatRateLimitPolicy(windows.map((w) => ({ name: w.name, quota: w.limit, window: w.windowMs / 1000 }))), server);
    assert.equal(
      parseRateLimitPolicy(server)?.map((p) => p.quota),
      [limits.perMinute, limits.perDay],
    );
  }
});

test('RateLimit: formatRateLimit equals the server formatState, admitted and banned, and parses back', () => {
  const windows = keyWindows({ perMinute: 60, perDay: 1000 });
  const usage = [
    { spec: windows[0]!, used: 48, resetMs: 40_500 },
    { spec: windows[1]!, used: 60, resetMs: 80_011_200 },
  ];
  for (const result of [
    { outcome: 'admitted' as const, windows: usage, banMs: 0 },
    { outcome: 'banned' as const, windows: usage, banMs: 599_001 },
  ]) {
    const server = formatState(result);
    const states = parseRateLimit(server)!;
    // A ban's 429 names the ban first, then each window as it stands (the day is not spent).
    assert.ok(states.length === (result.outcome === 'banned' ? 3 : 2), server);
    assert.is(formatRateLimit(states), server);
  }
  assert.is(formatState({ outcome: 'admitted', windows: usage, banMs: 0 }), '"minute";r=12;t=41, "day";r=940;t=80012');
  assert.is(formatState({ outcome: 'banned', windows: usage, banMs: 599_001 }), '"ban";r=0;t=600, "minute";r=12;t=41, "day";r=940;t=80012');
});

test('Deprecation, Sunset and the deprecation links: the formatters give the server values from the contract facts', () => {
  const facts = DEPRECATIONS.getPet;
  const link = 'https://github.com/adoption-store/adoption-store-kit#deprecation-and-sunset';
  const successor = `${BASE_PATH}${facts.successor}`;
  const server = deprecationHeaders({ since: facts.since, sunset: facts.sunset, successor: successor }, link);
  assert.is(formatDeprecation(Date.parse(facts.since)), server.deprecation);
  assert.is(formatSunset(Date.parse(facts.sunset)), server.sunset);
  assert.is(parseDeprecation(server.deprecation), Date.parse(facts.since));
  assert.is(parseSunset(server.sunset, NOW), Date.parse(facts.sunset));
  const links: Array<{ target: string; params: Record<string, string> }> = [
    { target: link, params: { rel: 'deprecation', type: 'text/html' } },
    { target: link, params: { rel: 'sunset', type: 'text/html' } },
    { target: successor, params: { rel: 'successor-version' } },
  ];
  assert.is(formatLinks(links), server.link);
  assert.equal(parseLinks(server.link), links);
});

test('the list Link rel="next" the server sends parses and formats back to the same text', async () => {
  const server = await createServer({ clock: new ManualClock(NOW), logger: false });
  try {
    const res = await server.inject({ method: 'GET', url: `${BASE_PATH}/pets?limit=2&status=available`, headers: { authorization: 'Bearer test-pro-key' } });
    const link = String(res.headers.link);
    const parsed = parseLinks(link);
    assert.ok(parsed && parsed.length === 1, link);
    assert.is(parsed![0]!.params.rel, 'next');
    assert.is(formatLinks(parsed!), link);
  } finally {
    await server.stop();
  }
});

test.run();
