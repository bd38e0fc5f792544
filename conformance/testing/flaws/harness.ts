// The flaws' harness: an implementation on a manual clock (the in-process reference server,
// or the second implementation of conformance/testing), optionally behind a flaw proxy, and a
// conformance run whose waits advance that clock instead of sleeping.
import { createServer, ManualClock, type ServerOptions } from '../../../server/index.ts';
import { runConformance, type Report, type RunOptions } from '../../run.ts';
import { CATALOGUE } from '../../catalogue.ts';
import { OPTIONAL_PHASES } from '../../options.ts';
import { startSecondServer, type SecondServerOptions } from '../second-server/index.ts';
import type { Flaw } from './flaw.ts';
import { startFlawProxy, type FlawBehaviour, type FlawProxy } from './proxy.ts';

export type Implementation = 'reference' | 'second';

export interface Target {
  implementation: Implementation;
  baseUrl: string;
  clock: ManualClock;
  /** A key for the main checks, and a spare one whose window the rate-limit checks may exhaust. */
  apiKey: string;
  rateLimitKey: string;
  /** What the implementation declares at the points the specification leaves open (--choice). */
  choices: Record<string, string>;
  stop(): Promise<void>;
}

/** What the second implementation chose, declared as an implementer would (its README's table). */
export const SECOND_CHOICES: Record<string, string> = {
  paging: 'link',
  'limit-out-of-range': 'clamp',
  'unknown-fields': 'refuse',
  'non-integer-id': '404',
  'ban-status': '403',
  'retry-after': 'http-date',
  'default-status': 'pending',
};

/** A ban the runs can wait out: 90 s on the manual clock. */
export const SECOND_BAN: SecondServerOptions = { banAfter: 5, banSeconds: 90 };

/**
 * A fresh implementation (memory store, its own keys and pets), behind `flaw` when given. A flaw
 * with a `secondBuild` is, on the second implementation, that build itself: no proxy in front.
 */
export async function startTarget(
  flaw?: FlawBehaviour & Pick<Flaw, 'secondBuild'>,
  implementation: Implementation = 'reference',
  second: SecondServerOptions = {},
  reference: Partial<ServerOptions> = {},
): Promise<Target> {
  const clock = new ManualClock();
  let origin: string;
  let close: () => Promise<void>;
  let keys: { apiKey: string; rateLimitKey: string };
  let choices: Record<string, string> = {};
  let proxied = flaw;
  if (implementation === 'second') {
    const build = flaw?.secondBuild;
    if (build) proxied = undefined;
    const options: SecondServerOptions = { ...SECOND_BAN, ...second, ...build, clock };
    const server = await startSecondServer(options);
    origin = server.origin;
    close = () => server.close();
    keys = { apiKey: server.keys.pro, rateLimitKey: server.keys.free };
    choices = { ...SECOND_CHOICES, ...(options.paging === 'none' ? { paging: 'none' } : {}) };
  } else {
    const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock, ...reference });
    await server.start();
    origin = server.info.uri;
    close = () => server.stop({ timeout: 1000 });
    keys = { apiKey: 'test-pro-key', rateLimitKey: 'test-free-key' };
  }
  let proxy: FlawProxy | undefined;
  if (proxied) proxy = await startFlawProxy(origin, proxied);
  return {
    implementation,
    baseUrl: `${proxy ? proxy.origin : origin}/v1`,
    clock,
    ...keys,
    choices,
    stop: async () => {
      await proxy?.close();
      await close();
    },
  };
}

/**
 * runConformance against a target, on its clock: Retry-After waits move the clock, never sleep.
 * `rateLimitKey: true` uses the target's spare key.
 */
export function conformOn(target: Target, options: Partial<Omit<RunOptions, 'rateLimitKey'>> & { rateLimitKey?: string | true } = {}): Promise<Report> {
  const { rateLimitKey, ...rest } = options;
  return runConformance({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    dredd: false,
    clock: target.clock,
    sleep: async (ms) => target.clock.advance(ms),
    choices: target.choices,
    ...(rateLimitKey === true ? { rateLimitKey: target.rateLimitKey } : rateLimitKey ? { rateLimitKey } : {}),
    ...rest,
  });
}

export function outcomeOf(report: Report, id: string): string | undefined {
  return report.results.find((r) => r.id === id)?.outcome;
}

export function failedIds(report: Report): string[] {
  return report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned').map((r) => r.id);
}

/** One seed for every run: a flaw caught once is caught every time. */
export const SEED = 20_251_205;

/**
 * The phases whose checks the catalogue names: every optional one but the model phase, whose power
 * model-power.test.ts measures on its own (it judges musts only, with checks of its own).
 */
export const HAND_WRITTEN_PHASES = OPTIONAL_PHASES.filter((p) => p !== 'model');

/** What the run needs to see a flaw follows from the check that catches it. */
export function needsOf(checkId: string): Partial<Omit<RunOptions, 'rateLimitKey'>> & { rateLimitKey?: true } {
  const check = CATALOGUE.find((c) => c.id === checkId)!;
  return {
    ...(check.needs?.includes('rate-limit-key') ? { rateLimitKey: true as const } : {}),
    // The default depth: a ban threshold deeper than a fixed handful of probes is reached too.
    ...(check.needs?.includes('ban-check') ? { banCheck: true, maxWaitSeconds: 900 } : {}),
  };
}
