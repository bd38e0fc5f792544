// The pictures the k6 scripts write beside their JSON summaries, rendered in headless Chromium: the
// timeline of rate-limit.js against a correct limiter with a ban, and against a ban that is announced
// but not enforced, and capacity.js's chart. Screenshots go to $SCREENSHOT_DIR to be looked at.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitedTarget } from './fake-targets.ts';
import { captureConsole } from './k6-shim.ts';
import { runScript } from './k6-run.ts';
import { readFileSync } from 'node:fs';
import { CHART_SOURCE, capacityChart, capacityRun, rateLimitTimeline } from './pictures.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';

const available = chromiumAvailable("the k6 scripts' pictures are not rendered");

async function unenforcedBan(): Promise<string> {
  const out = captureConsole();
  try {
    const r = await runScript(join(dirname(fileURLToPath(import.meta.url)), '..', 'rate-limit.js'), {
      env: { PLAN: 'free', BAN: '1', BAN_DURATION: '150s' },
      handler: limitedTarget({ limit: 60, banAfter: 5, banSeconds: 90, fault: 'ban-unenforced' }),
      startMs: Date.UTC(2026, 10, 22, 10, 0, 17, 300),
    });
    return r.summary['rate-limit-summary.svg']!;
  } finally {
    out.restore();
  }
}

(available ? test : test.skip)("in Chromium: rate-limit.js's timeline shows the windows, the ban and its lifting, and a ban that is not enforced", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 940, height: 380 } });
    const show = async (svg: string, file: string) => {
      await page.setContent(`<!doctype html><body style="margin:20px;background:#fff">${svg}</body>`);
      await page.locator('svg').screenshot({ path: join(SCREENSHOTS, file) });
      return page.locator('svg [data-at-ms]').evaluateAll((els) =>
        els.map((el) => {
          const b = el.getBoundingClientRect();
          return {
            cls: el.getAttribute('class') ?? '',
            at: Number(el.getAttribute('data-at-ms')),
            until: Number(el.getAttribute('data-until-ms')),
            x: b.x,
            right: b.x + b.width,
            kind: el.getAttribute('data-kind'),
          };
        }),
      );
    };

    const correct = await show(await rateLimitTimeline(), 'k6-rate-limit-timeline.png');
    const of = (cls: string) => correct.filter((m) => m.cls.split(' ').includes(cls));
    assert.ok(of('tl-window-boundary').length >= 3, 'three window boundaries');
    assert.is(of('tl-violation').length, 0, 'a correct limiter breaks nothing');
    const [ban] = of('tl-ban');
    assert.ok(ban, 'the ban is drawn');
    assert.ok(Math.abs(ban!.until - ban!.at - 90_000) < 7_000, `the ban spans its 90 s (${ban!.until - ban!.at} ms)`);
    const inside = of('tl-request').filter((m) => m.at > ban!.at && m.at < ban!.until);
    const after = of('tl-request').filter((m) => m.at >= ban!.until);
    assert.ok(inside.length >= 2 && inside.every((m) => m.cls.includes('tl-refused')), 'every request while the ban lasts is refused');
    assert.equal(
      after.map((m) => m.cls.includes('tl-admitted')),
      [true],
      'the probe after the ban is admitted',
    );
    assert.ok(after[0]!.x >= ban!.right - 1, 'and stands after the ban');

    const faulty = await show(await unenforcedBan(), 'k6-rate-limit-unenforced-ban.png');
    const broken = faulty.filter((m) => m.cls.includes('tl-violation'));
    assert.ok(
      broken.some((m) => m.kind === 'ban_not_enforced'),
      JSON.stringify(broken.map((m) => m.kind)),
    );
    const fban = faulty.find((m) => m.cls.includes('tl-ban'))!;
    for (const v of broken.filter((m) => m.kind === 'ban_not_enforced')) assert.ok(v.x > fban.x && v.x < fban.right, 'marked inside the ban it broke');

    const capacity = await capacityRun();
    await show(capacity.svg, 'k6-capacity-chart.png');
    // The knee is drawn between the step that held last (40/s) and the first that broke (80/s).
    const steps = await page
      .locator('.cap-step')
      .evaluateAll((els) =>
        els.map((el) => ({ rate: Number(el.getAttribute('data-rate')), ok: el.getAttribute('class')!.includes('cap-ok'), x: el.getBoundingClientRect().x })),
      );
    assert.equal(
      steps.map((s) => [s.rate, s.ok]),
      [
        [10, true],
        [20, true],
        [40, true],
        [80, false],
      ],
      'the steps after the first that plainly missed its rate are not run, nor drawn',
    );
    const knee = await page.locator('.cap-knee').evaluate((el) => el.getBoundingClientRect().x);
    assert.ok(knee > steps[2]!.x && knee < steps[3]!.x, `the knee (${knee}) stands between 40/s and 80/s`);
    // A log axis: each doubling the same distance on screen.
    const gaps = steps.slice(1).map((s, i) => s.x - steps[i]!.x);
    assert.ok(
      gaps.every((g) => Math.abs(g - gaps[0]!) < 1.5),
      `equal gaps: ${gaps.join(', ')}`,
    );
    // The heading says the bound in the words of the text report's line.
    const bound = /bound found: [^\n]*/.exec(capacity.stdout)![0];
    assert.is(await page.locator('svg > text').first().textContent(), bound);
    assert.match(bound, /the server's knee, between 40 and 80\/s/);
  } finally {
    await browser.close();
  }
});

test("the README's capacity chart says what it was drawn from: the shim and a fake target, not a server's address", async () => {
  const committed = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'capacity-chart.svg'), 'utf8');
  for (const svg of [committed, await capacityChart()]) {
    assert.ok(svg.includes(CHART_SOURCE), 'the subtitle names the shim and the fake target');
    assert.not.match(svg, /127\.0\.0\.1|localhost/);
  }
  const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'), 'utf8');
  assert.match(readme, /!\[capacity\.js chart drawn under the k6 shim against a fake target[^\]]*\]\(capacity-chart\.svg\)/);
});

test.run();
