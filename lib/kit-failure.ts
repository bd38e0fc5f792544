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

/** From now on, an exception thrown or a rejection left unhandled anywhere in the process ends it with KIT_FAILED. */
export function exitOnKitFailure(tool: string, write: (text: string) => void = (text) => process.stderr.write(text)): void {
  const crash = (error: unknown) => {
    write(kitFailure(tool, error));
    process.exit(KIT_FAILED);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}

/** A run abandoned by a failure may still hold sockets or timers: the process ends within two seconds anyway. */
export function endSoonAfter(code: number): void {
  if (code === KIT_FAILED) setTimeout(() => process.exit(code), 2000).unref();
}

/** A command's `run`, guarded: any failure it did not expect, thrown or left unhandled, ends in KIT_FAILED. */
export async function guardedMain(tool: string, run: () => Promise<number>): Promise<number> {
  exitOnKitFailure(tool);
  try {
    return await run();
  } catch (error) {
    process.stderr.write(kitFailure(tool, error));
    return KIT_FAILED;
  }
}
