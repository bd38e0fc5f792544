// The rate-limit timeline: which marks the SVG text holds for a correct and a flawed limiter, and,
// rendered in headless Chromium, where they land. The screenshots are written to $SCREENSHOT_DIR
// (default: a folder in the system's temporary directory) to be looked at.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CORRECT_LIMITER, FLAWED_LIMITER, timelineOf } from './testing/pictures.ts';
import { no, ok, W1 } from './testing/recorded.ts';
import { timelineSvg, type TimelinePoint } from './timeline-svg.js';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';

const count = (svg: string, cls: string) => (svg.match(new RegExp(`class="([^"]*\\s)?${cls}[\\s"]`, 'g')) ?? []).length;
const labels = (svg: string) =>
  [...svg.matchAll(/<text class="tl-violation-label tl-(?:must|should)" data-kind="([^"]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => m[2]!);
const kinds = (svg: string) => [...svg.matchAll(/class="tl-violation tl-(must|should)" data-kind="([a-z_]+)"/g)].map((m) => `${m[2]} (${m[1]})`).sort();

const cases: Array<[name: string, svg: () => string, marks: Record<string, number>, violations: string[]]> = [
  [
    'a correct limiter',
    () => timelineSvg(CORRECT_LIMITER),
    {
      'tl-admitted': 9,
      'tl-refused': 3,
      'tl-retry-after': 3,
      'tl-window-boundary': 3,
      'tl-ban': 0,
      'tl-remaining': 1,
      'tl-violation': 0,
      'tl-violation-label': 0,
    },
    [],
  ],
  [
    'a flawed limiter',
    () => timelineSvg(FLAWED_LIMITER),
    { 'tl-admitted': 6, 'tl-refused': 3, 'tl-retry-after': 3, 'tl-ban': 1, 'tl-remaining': 1, 'tl-violation': 6, 'tl-violation-label': 4 },
    [
      'ban_not_enforced (must)',
      'over_admitted (must)',
      'over_admitted (must)',
      'remaining_not_decremented (must)',
      'remaining_not_decremented (must)',
      'served_before_retry_after (must)',
    ],
  ],
];

for (const [name, svg, marks, violations] of cases) {
  test(`${name}: the SVG holds its marks`, () => {
    const text = svg();
    for (const [cls, n] of Object.entries(marks)) assert.is(count(text, cls), n, cls);
    assert.equal(kinds(text), violations);
  });
}

test('requests too close for the time axis are drawn in the order sent, spans reaching the first request after them', () => {
  // Three admitted and a 429 in the same millisecond, then the retry after Retry-After.
  const burst = timelineOf('k', [ok(1, 2, W1), ok(1, 1, W1), ok(1, 0, W1), no(1, W1, '59'), ok(60, 2, W1 + 60)]);
  const svg = timelineSvg(burst);
  assert.match(svg, /data-axis="sequence"/);
  const xs = [...svg.matchAll(/class="tl-request [^"]+" data-index="\d+" data-at-ms="\d+" data-status="\d+" cx="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.is(new Set(xs).size, 5, 'every request stands apart');
  const span = /class="tl-retry-after"[^>]* x="([\d.]+)"[^>]* width="([\d.]+)"/.exec(svg)!;
  assert.ok(Math.abs(Number(span[1]) + Number(span[2]) - (xs[4]! - (xs[4]! - xs[3]!) / 2)) < 1, "the span ends where the retry stands, its slot's left edge");
  assert.match(timelineSvg(burst, { axis: 'time' }), /data-axis="time"/);
});

test('each kind of broken rule is named in the picture, beside a mark of that kind', () => {
  const svg = timelineSvg(FLAWED_LIMITER);
  assert.equal(labels(svg).sort(), ['ban_not_enforced', 'over_admitted', 'remaining_not_decremented', 'served_before_retry_after']);
  for (const m of svg.matchAll(/<text class="tl-violation-label[^"]*" data-kind="([^"]+)" data-index="(\d+)"/g)) {
    assert.match(svg, new RegExp(`class="tl-violation tl-\\w+" data-kind="${m[1]}" data-index="${m[2]}"`), `${m[1]} is named at one of its own marks`);
  }
});

/** `n` requests a second apart, each admitted with Remaining counting down, each breaking `kinds`. */
function crowded(n: number, kinds: (i: number) => string[]): TimelinePoint[] {
  return Array.from({ length: n }, (_, i) => ({
    atMs: i * 1000,
    status: 200,
    limit: n,
    remaining: n - i - 1,
    resetAtMs: n * 1000,
    violations: kinds(i).map((kind) => ({ kind, level: 'must' as const, detail: `request ${i + 1}` })),
  }));
}

const cases1000: Array<[name: string, kinds: (i: number) => string[], named: string[]]> = [
  ['one kind on every request', () => ['over_admitted'], ['over_admitted']],
  [
    'three kinds on every request',
    () => ['over_admitted', 'remaining_not_decremented', 'served_before_retry_after'],
    ['over_admitted', 'remaining_not_decremented', 'served_before_retry_after'],
  ],
  ['a kind in each of 1,000 requests, in runs', (i) => [`kind_${Math.floor(i / 50)}`], Array.from({ length: 20 }, (_, k) => `kind_${k}`)],
];
for (const [name, kinds, named] of cases1000) {
  test(`1,000 requests with ${name}: a bounded number of names, the first of each kind named, a bounded SVG`, () => {
    const svg = timelineSvg({ key: 'k', points: crowded(1000, kinds) });
    const written = labels(svg);
    assert.ok(written.length <= 16, `${written.length} labels`);
    assert.ok(written.length >= Math.min(named.length, 16), `${written.length} labels for ${named.length} kinds`);
    for (const kind of new Set(written)) assert.ok(named.includes(kind), kind);
    if (named.length <= 16) assert.equal([...new Set(written)].sort(), [...named].sort());
    // Per request: its circle (with its title), a share of the Remaining line and its triangles; nothing grows with the labels.
    const perRequest = 190 + 250 * kinds(0).length;
    assert.ok(svg.length < 1000 * perRequest + 20_000, `${svg.length} characters`);
  });
}

test('1,000 requests that break nothing draw in a bounded SVG', () => {
  const svg = timelineSvg({ key: 'k', points: crowded(1000, () => []) });
  assert.is(count(svg, 'tl-request'), 1000);
  assert.ok(svg.length < 250_000, `${svg.length} characters`);
});

test('an injected answer is drawn hollow, says so, has its legend entry, and leaves the Remaining line alone', () => {
  const points: TimelinePoint[] = [
    { atMs: 0, status: 200, limit: 3, remaining: 2, resetAtMs: 20_000 },
    { atMs: 1000, status: 503, injected: true, retryAfterMs: 1000 },
    { atMs: 2000, status: 429, injected: true, limit: 999, remaining: 0, resetAtMs: 5000, retryAfterMs: 30_000 },
    { atMs: 3000, status: 500, injected: true },
    { atMs: 32_000, status: 200, limit: 3, remaining: 1, resetAtMs: 20_000 },
  ];
  const svg = timelineSvg({ key: 'k', points }, { axis: 'time' });
  assert.is(count(svg, 'tl-injected'), 3);
  const injected = [
    ...svg.matchAll(
      /<circle class="tl-request (tl-\w+(?:-\w+)?) tl-injected"[^>]*fill="#ffffff"[^>]*stroke-dasharray="[^"]+"><title>#\d: (\d+) ([^<]+)<\/title>/g,
    ),
  ];
  assert.equal(
    injected.map((m) => `${m[1]} ${m[2]}`),
    ['tl-other 503', 'tl-refused 429', 'tl-other 500'],
  );
  for (const m of injected) assert.match(m[3]!, /injected by --faults/);
  assert.match(svg, /<text x="[\d.]+" y="33" fill="#1f2328">injected<\/text>/);
  assert.not.match(timelineSvg(CORRECT_LIMITER), />injected</, 'no legend entry without an injected answer');
  const line = /class="tl-remaining" data-points="(\d+)"[^>]* points="([^"]+)"/.exec(svg)!;
  assert.is(line[1], '2', 'the Remaining line passes the injected answers by');
  assert.match(svg, />3<\/text>/, "the axis is the limiter's Limit, not an injected one");
  assert.is(count(svg, 'tl-window-boundary'), 1, "an injected Reset is not the limiter's boundary");
  assert.is(count(svg, 'tl-retry-after'), 1, "the injected 429's Retry-After still binds the client");
});

test('text from the data is escaped, and the SVG fetches nothing', () => {
  const svg = timelineSvg(timelineOf('<script>"&', [ok(1, 2, W1), no(2, W1, '58')]));
  assert.not.ok(svg.includes('<script>'));
  assert.ok(svg.includes('&lt;script&gt;&quot;&amp;'));
  assert.not.match(svg, /<(script|image|foreignObject|style)\b|href=|url\(/);
});

test('no request draws an empty picture that says so', () => {
  assert.match(timelineSvg({ key: 'k', points: [] }), /no request<\/text><\/svg>$/);
});

const available = chromiumAvailable('the timelines are not rendered');

interface Box {
  cls: string;
  at: number;
  x: number;
  y: number;
  width: number;
  kind: string | null;
}

(available ? test : test.skip)('in Chromium: the marks land where their times are, and the screenshots show them', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 940, height: 380 } });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const boxes = async (): Promise<Box[]> =>
      page.locator('svg [data-at-ms]').evaluateAll((els) =>
        els.map((el) => {
          const b = el.getBoundingClientRect();
          return {
            cls: el.getAttribute('class') ?? '',
            at: Number(el.getAttribute('data-at-ms')),
            x: b.x + b.width / 2,
            y: b.y + b.height / 2,
            width: b.width,
            kind: el.getAttribute('data-kind'),
          };
        }),
      );
    const show = async (svg: string, file: string) => {
      await page.setContent(`<!doctype html><body style="margin:20px;background:#fff">${svg}</body>`);
      await page.locator('svg').screenshot({ path: join(SCREENSHOTS, file) });
    };

    await show(timelineSvg(CORRECT_LIMITER), 'timeline-correct-limiter.png');
    let marks = await boxes();
    const requests = marks.filter((m) => m.cls.includes('tl-request'));
    assert.is(requests.length, 12);
    // Later requests stand further right.
    for (let i = 1; i < requests.length; i++) assert.ok(requests[i]!.x > requests[i - 1]!.x, `request ${i} is right of the one before`);
    assert.is(marks.filter((m) => m.cls.includes('tl-violation')).length, 0);
    // Each Retry-After span starts at its 429 and ends at the next admitted request (the client waited exactly).
    const spans = await page
      .locator('.tl-retry-after')
      .evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((b) => ({ from: b.x, to: b.x + b.width })));
    const refused = requests.filter((m) => m.cls.includes('tl-refused'));
    assert.is(spans.length, 3);
    spans.forEach((span, i) => {
      assert.ok(Math.abs(span.from - refused[i]!.x) < 1.5, `span ${i} starts at its 429`);
      const next = requests.find((r) => r.x > refused[i]!.x + 2);
      if (next) assert.ok(Math.abs(span.to - next.x) < 4, `span ${i} ends where the client came back (${span.to} vs ${next.x})`);
    });
    // Window boundaries sit between the 429 that closed a window and the request that opened the next.
    const boundaries = marks.filter((m) => m.cls.includes('tl-window-boundary'));
    assert.ok(boundaries.length >= 2);
    assert.ok(boundaries[0]!.x > refused[0]!.x && boundaries[0]!.x <= requests[4]!.x + 1, 'the first boundary falls between the first 429 and the next window');
    const line = await page.locator('.tl-remaining').evaluate((el) => Number(el.getAttribute('data-points')));
    assert.is(line, 12, 'Remaining is drawn through every response');

    await show(timelineSvg(FLAWED_LIMITER), 'timeline-flawed-limiter.png');
    marks = await boxes();
    const violations = marks.filter((m) => m.cls.includes('tl-violation'));
    assert.is(violations.length, 6);
    for (const v of violations) {
      const request = marks.find((m) => m.cls.includes('tl-request') && m.at === v.at)!;
      assert.ok(Math.abs(v.x - request.x) < 1, `${v.kind} is drawn above the request that broke it`);
      assert.ok(v.y < request.y, `${v.kind} is above its request`);
    }
    assert.equal([...new Set(violations.filter((v) => v.cls.includes('tl-must')).map((v) => v.kind))].sort(), [
      'ban_not_enforced',
      'over_admitted',
      'remaining_not_decremented',
      'served_before_retry_after',
    ]);
    const ban = marks.find((m) => m.cls.includes('tl-ban'))!;
    const enforced = violations.filter((v) => v.kind === 'ban_not_enforced');
    const banBox = await page.locator('.tl-ban').evaluate((el) => {
      const b = el.getBoundingClientRect();
      return { from: b.x, to: b.x + b.width };
    });
    for (const v of enforced) assert.ok(v.x > banBox.from && v.x < banBox.to, 'the requests served during the ban fall inside it');
    assert.ok(ban.width > 500, 'a two-minute ban spans most of the picture');
    const named = await page.locator('.tl-violation-label').evaluateAll((els) =>
      els.map((el) => {
        const b = el.getBoundingClientRect();
        return { kind: el.getAttribute('data-kind'), x0: b.left, x1: b.right, y0: b.top, y1: b.bottom };
      }),
    );
    assert.is(named.length, 4);
    named.forEach((a, i) =>
      named
        .slice(i + 1)
        .forEach((b) => assert.ok(a.x1 <= b.x0 + 1 || b.x1 <= a.x0 + 1 || a.y1 <= b.y0 + 1 || b.y1 <= a.y0 + 1, `${a.kind} and ${b.kind} do not overlap`)),
    );
    for (const label of named) {
      for (const v of violations) {
        const inside = v.x > label.x0 && v.x < label.x1 && v.y > label.y0 && v.y < label.y1;
        assert.not.ok(inside, `the label ${label.kind} does not cover the ${v.kind} mark`);
      }
    }
    assert.is(
      await page.locator('.tl-violation title').first().textContent(),
      'over_admitted (must): request 4 admitted in the window resetting at 1800000060 with Limit 3',
    );
    assert.equal(requested, [], 'rendering fetched nothing');
  } finally {
    await browser.close();
  }
  process.stdout.write(`  screenshots in ${SCREENSHOTS}\n`);
});

test.run();
