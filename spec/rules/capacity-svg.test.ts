// The capacity chart: which marks the SVG text holds for a search whose knee lies between 400/s
// and 500/s, where a doubling search's steps stand (log axes), what its heading says was the bound,
// and, rendered in headless Chromium, on which side of the knee each step lands. The
// screenshot is written to $SCREENSHOT_DIR (default: a folder in the system's temporary
// directory) to be looked at.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundText, capacitySvg, type Bound, type CapacityRow } from './capacity-svg.js';
import { CAPACITY } from './testing/pictures.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';

const count = (svg: string, cls: string) => (svg.match(new RegExp(`class="[^"]*\\b${cls}\\b`, 'g')) ?? []).length;

test('no step draws an empty picture that says so', () => {
  assert.match(capacitySvg({ rows: [], held: null, broke: null }), /no step<\/text><\/svg>$/);
});

test('the capacity chart marks each step and the knee between held and broke', () => {
  const svg = capacitySvg(CAPACITY);
  assert.is(count(svg, 'cap-ok'), 4);
  assert.is(count(svg, 'cap-broke'), 2);
  assert.match(svg, /class="cap-knee" data-held="400" data-broke="500"/);
  assert.is(count(svg, 'cap-p95'), 1);
  assert.is(count(svg, 'cap-p99'), 1);
});

/** A doubling search from 50/s to 12,800/s that broke at 3,200/s. */
const DOUBLING: CapacityRow[] = [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800].map((rate) => ({
  rate,
  achieved: Math.min(rate, 2000),
  p95: rate < 3200 ? 5 : 400,
  p99: rate < 3200 ? 9 : 900,
  requestMs: rate < 3200 ? 1.4 : 120,
  ok: rate < 3200,
}));
const stepX = (svg: string) => [...svg.matchAll(/class="cap-step [^"]*" data-rate="(\d+)" cx="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])] as const);

test("the rate axis is logarithmic: a doubling search's steps stand equally apart, 50 to 1,600/s over most of the width", () => {
  const svg = capacitySvg({ rows: DOUBLING, held: 1600, broke: 3200, bound: 'server' });
  const xs = stepX(svg);
  assert.is(xs.length, 9);
  const gaps = xs.slice(1).map(([, x], i) => x - xs[i]![1]);
  for (const gap of gaps) assert.ok(Math.abs(gap - gaps[0]!) <= 0.2, `equal gaps: ${gaps.join(', ')}`);
  const x50 = xs[0]![1];
  const x1600 = xs[5]![1];
  assert.ok(x1600 - x50 > (900 - 56 - 60) / 2, `50 to 1600/s spans more than half the plot (${x1600 - x50} px)`);
  assert.match(svg, /offered rate \(requests\/s, log scale\)/);
  assert.match(svg, /data-rate="50"[^>]*>50<\/text>[\s\S]*data-rate="10000"[^>]*>10000<\/text>/, 'ticks at 1, 2 and 5 of each power of ten');
  // The knee stands midway on the log scale between 1600/s and 3200/s.
  const knee = Number(/class="cap-knee"[^>]* x1="([\d.]+)"/.exec(svg)![1]);
  assert.ok(Math.abs(knee - (xs[5]![1] + xs[6]![1]) / 2) <= 0.2, String(knee));
});

/** [bound, held, broke, heading, the marker's words]: the heading says what the report's `bound found:` line says. */
const headings: Array<[Bound | null, number | null, number | null, string, RegExp | null]> = [
  ['server', 1600, 3200, "bound found: the server's knee, between 1600 and 3200/s", /^server's knee: held 1600\/s, broke at 3200\/s$/],
  [
    'generator',
    1600,
    3200,
    "bound found: the generator's ceiling at 3200/s (1600/s held), not the server",
    /^generator's ceiling: held 1600\/s, broke at 3200\/s$/,
  ],
  ['key', null, 50, "bound found: the key's limit at 50/s (nothing held), not the server", /^key's limit: nothing held, broke at 50\/s$/],
  [null, 12800, null, 'bound found: none up to 12800/s (neither the server, the key nor the generator)', /^no bound found: held 12800\/s$/],
];
for (const [bound, held, broke, heading, marker] of headings) {
  test(`the heading names the bound found: ${bound ?? 'none'}`, () => {
    const svg = capacitySvg({ rows: DOUBLING, held, broke, bound, title: 'capacity.js against http://127.0.0.1:3000/v1' });
    const unescape = (t: string) => t.replace(/&#39;/g, "'");
    assert.is(unescape(/<text x="56" y="16"[^>]*>([^<]*)<\/text>/.exec(svg)![1]!), heading);
    assert.is(heading, `bound found: ${boundText(bound, held, broke, 12800)}`, "the report's words");
    assert.match(svg, /class="cap-subtitle"[^>]*>capacity\.js against http:\/\/127\.0\.0\.1:3000\/v1<\/text>/);
    const words = unescape(/class="cap-knee"[^>]*><title>([^<]*)<\/title>/.exec(svg)![1]!);
    assert.match(words, marker!);
    if (bound !== 'server') assert.not.match(words, /knee/, 'no knee under a heading that names another bound, or none');
  });
}

test("the guides' example picture names its bound in the heading, as capacity.js's report does", () => {
  const heading = `bound found: ${boundText('server', 400, 500, 600)}`;
  assert.ok(capacitySvg(CAPACITY).includes(`>${heading.replace(/'/g, '&#39;')}</text>`), heading);
});

test('without a bound given the title is the heading', () => {
  const { bound: _, ...unbound } = CAPACITY;
  const svg = capacitySvg({ ...unbound, title: 'Capacity search: held 400/s, broke at 500/s' });
  assert.match(svg, /<text x="56" y="16"[^>]*>Capacity search: held 400\/s, broke at 500\/s<\/text>/);
  assert.not.match(svg, /cap-subtitle|request ms/);
});

test('text from the data is escaped, and the SVG fetches nothing', () => {
  const svg = capacitySvg({ title: '<script>"&', rows: [{ name: '<b>', rate: 1, achieved: 1, p95: 1, p99: 1, ok: false, why: '"&' }], broke: 1 });
  assert.not.ok(svg.includes('<script>') || svg.includes('<b>'));
  assert.ok(svg.includes('&lt;script&gt;&quot;&amp;'));
  assert.not.match(svg, /<(script|image|foreignObject|style)\b|href=|url\(/);
});

const available = chromiumAvailable('the capacity chart is not rendered');

(available ? test : test.skip)('in Chromium: each step lies on its side of the knee, and the screenshot shows them', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 940, height: 380 } });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.setContent(`<!doctype html><body style="margin:20px;background:#fff">${capacitySvg(CAPACITY)}</body>`);
    await page.locator('svg').screenshot({ path: join(SCREENSHOTS, 'capacity-example.png') });
    const steps = await page
      .locator('.cap-step')
      .evaluateAll((els) =>
        els.map((el) => ({ rate: Number(el.getAttribute('data-rate')), broke: el.classList.contains('cap-broke'), x: el.getBoundingClientRect().x })),
      );
    assert.is(steps.length, 6);
    const knee = await page.locator('.cap-knee').evaluate((el) => el.getBoundingClientRect().x);
    for (const s of steps) assert.ok(s.broke ? s.x > knee : s.x < knee, `step ${s.rate}/s lies on the ${s.broke ? 'broken' : 'held'} side of the knee`);
    assert.equal(requested, [], 'rendering fetched nothing');
  } finally {
    await browser.close();
  }
  process.stdout.write(`  screenshot in ${SCREENSHOTS}\n`);
});

test.run();
