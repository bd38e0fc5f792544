// When a tool of the kit fails itself. Node exits 1 on an uncaught exception, and 1 is every tool's
// verdict (does not conform, a finding at --fail-on, the merged run failed); 2 is "could not judge".
// A failure of the kit is neither, so it has a status of its own, the same in every tool.

/** The exit status of a tool that failed itself: no verdict on what it judges. */
export const KIT_FAILED = 3;

/** The one message a failed tool prints: its name, that it is no verdict, and the stack to report. */
export function kitFailure(tool: string, error: unknown): string {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `${tool}: the kit failed (an internal error, no verdict on what it judges; please report it): ${detail}\n`;
}

/**
 * `work`, and any exception thrown or promise rejected unhandled anywhere in the process while it
 * runs (an event handler of a socket, a timer): the first of them ends it, as `{ crash }`.
 */
export async function guarded<T>(work: () => Promise<T>): Promise<{ value: T } | { crash: unknown }> {
  let crashed: (error: unknown) => void = () => {};
  const crash = new Promise<{ crash: unknown }>((resolve) => (crashed = (error) => resolve({ crash: error })));
  const onError = (error: unknown) => crashed(error);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  try {
    const running = work();
    // A run abandoned after a crash may still reject later; that is no news.
    running.catch(() => {});
    return await Promise.race([running.then((value) => ({ value })), crash]).catch((error: unknown) => ({ crash: error }));
  } finally {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
  }
}

/**
 * For the life of the process (a command's entry, never a library call): an exception thrown or a
 * rejection left unhandled anywhere, even after the verdict was printed, ends it with KIT_FAILED.
 */
export function exitOnKitFailure(tool: string): void {
  const crash = (error: unknown) => {
    process.stderr.write(kitFailure(tool, error));
    process.exit(KIT_FAILED);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}

/** A command's `run`: a failure it did not expect, thrown or left unhandled at any time, ends in KIT_FAILED. */
export async function guardedMain(tool: string, run: () => Promise<number>): Promise<number> {
  exitOnKitFailure(tool);
  const ran = await guarded(run);
  if ('value' in ran) return ran.value;
  process.stderr.write(kitFailure(tool, ran.crash));
  return KIT_FAILED;
}

/** A run abandoned by a failure may still hold sockets or timers: the process ends within two seconds anyway. */
export function endSoonAfter(code: number): void {
  if (code === KIT_FAILED) setTimeout(() => process.exit(code), 2000).unref();
}
