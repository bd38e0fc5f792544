// Waiting for what a test caused to be seen (a stream ended, an event delivered): polled until it is
// true. The bound only ends a test that would otherwise hang: a busy machine sees it later, and a
// test must not fail for that, so the bound is generous and says so when it fires.

/** Long enough that only something that will never happen reaches it. */
export const HANG_BOUND_MS = 30_000;

/** How long a test waits for a program it starts (Prism) to say it listens: a hang bound too; Prism took over 30 s under busy loops. */
export const START_BOUND_MS = 180_000;

export async function eventually(condition: () => boolean, what: string, boundMs = HANG_BOUND_MS, everyMs = 10): Promise<void> {
  const until = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`${what}: not seen within ${boundMs} ms, a bound only a hang should reach`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `promise`, or a failure naming `what` once `ms` have passed with it unsettled: a hang fails the test (or round) rather than the run. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
