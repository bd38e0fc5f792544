// A target that stops answering, as a server does whose handler never returns while holding its
// store's lock: from one request on, every request on /pets waits forever, and the port stays open.
// The reference server behind the flaw proxy; stop() closes every connection it holds.
import type { ProxyRequest } from './flaws/proxy.ts';
import { startTarget, type Target } from './flaws/harness.ts';

export interface HangingTarget extends Target {
  /** Requests on /pets the target received and never answered. */
  held(): number;
  /** Requests the target answered. */
  answered(): number;
}

/**
 * The hang starts with the first request on /pets for which `hangs` says so (given how many requests
 * on /pets came before it), and never ends: later requests on /pets are held too.
 */
export async function startHangingTarget(hangs: (req: ProxyRequest, before: number) => boolean): Promise<HangingTarget> {
  let seen = 0;
  let hung = false;
  let held = 0;
  let answered = 0;
  const target = await startTarget({
    request: (req) => {
      const onPets = /\/pets(\/|\?|$)/.test(req.url);
      if (onPets && !hung && hangs(req, seen)) hung = true;
      if (onPets) seen++;
      if (!(onPets && hung)) {
        answered++;
        return req;
      }
      held++;
      return new Promise<never>(() => {});
    },
  });
  return { ...target, held: () => held, answered: () => answered };
}

/** A target that answers `n` requests on /pets, then none. */
export function startTargetHangingAfter(n: number): Promise<HangingTarget> {
  return startHangingTarget((_req, before) => before >= n);
}
