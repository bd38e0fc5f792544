// The pictures load/README.md shows, made by the scripts themselves under the k6 shim on a fake
// clock (so they come out the same every time): rate-limit.js's timeline of a correct limiter with a
// ban, and capacity.js's chart of a target with a knee. scripts/generate.ts keeps them current.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kneeTarget, limitedTarget } from './fake-targets.ts';
import { captureConsole } from './k6-shim.ts';
import { runScript } from './k6-run.ts';

const load = join(dirname(fileURLToPath(import.meta.url)), '..');
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

async function summaryFiles(script: string, env: Record<string, string>, handler: Parameters<typeof runScript>[1]['handler'], file: string) {
  const out = captureConsole();
  try {
    const r = await runScript(join(load, script), { env, handler, startMs: START });
    const svg = r.summary[file];
    if (svg === undefined) throw new Error(`${script} wrote no ${file}`);
    return { svg, stdout: r.summary.stdout ?? '' };
  } finally {
    out.restore();
  }
}

async function summaryFile(script: string, env: Record<string, string>, handler: Parameters<typeof runScript>[1]['handler'], file: string): Promise<string> {
  return (await summaryFiles(script, env, handler, file)).svg;
}

/** rate-limit.js with BAN=1 against a correct limiter of 60 a minute that bans for 90 s after 5 refusals. */
export function rateLimitTimeline(): Promise<string> {
  return summaryFile(
    'rate-limit.js',
    { PLAN: 'free', BAN: '1', BAN_DURATION: '150s' },
    limitedTarget({ limit: 60, banAfter: 5, banSeconds: 90 }),
    'rate-limit-summary.svg',
  );
}

/** capacity.js's doubling search against a target that slows past 65 requests a second: its picture and its text report. */
export function capacityRun(): Promise<{ svg: string; stdout: string }> {
  return summaryFiles(
    'capacity.js',
    { START_RATE: '10', MAX_RATE: '400', HOLD: '5s', P95_MS: '100', P99_MS: '200', CREATE_RATIO: '0' },
    kneeTarget(65),
    'capacity-summary.svg',
  );
}

/**
 * What the README's chart is drawn from, as its subtitle says (issue 39: it said "capacity.js against
 * http://127.0.0.1:3000/v1", capacity.js's default BASE_URL, which no server answered).
 */
export const CHART_SOURCE = 'capacity.js under the k6 shim (load/testing), against a fake target that slows past 65 requests/s';

/** capacity.js's picture of that search, its subtitle naming what it was drawn from. */
export async function capacityChart(): Promise<string> {
  const { svg } = await capacityRun();
  const said = 'capacity.js against http://127.0.0.1:3000/v1';
  if (!svg.includes(said)) throw new Error(`capacity.js's picture no longer says "${said}": update capacityChart`);
  return svg.split(said).join(CHART_SOURCE);
}
