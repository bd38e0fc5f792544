// The capacity chart: which marks the SVG text holds for a search whose knee lies between 400/s
// and 500/s, and, rendered in headless Chromium, on which side of the knee each step lands. The
// screenshot is written to $SCREENSHOT_DIR (default: a folder in the system's temporary
// directory) to be looked at.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capacitySvg } from './capacity-svg.js';
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
