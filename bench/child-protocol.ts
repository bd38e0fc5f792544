// The one message every server launched by the benchmark sends its parent once it listens.
export interface ReadyMessage {
  type: 'ready';
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
}

export function isReady(m: unknown): m is ReadyMessage {
  return typeof m === 'object' && m !== null && (m as ReadyMessage).type === 'ready' && typeof (m as ReadyMessage).origin === 'string';
}

/** Tells the parent where we listen; a server started by hand (no IPC channel) prints it instead. */
export function announce(origin: string): void {
  const message: ReadyMessage = { type: 'ready', origin };
  if (process.send) process.send(message);
  else process.stderr.write(`listening on ${origin}\n`);
}

/** The bytes the bare servers answer with: read once from the reference server by the parent. */
export interface CannedResponse {
  contentType: string;
  bodyFile: string;
}

export function cannedFromEnv(): CannedResponse {
  const { BENCH_BODY_FILE: bodyFile, BENCH_CONTENT_TYPE: contentType } = process.env;
  if (!bodyFile || !contentType) throw new Error('BENCH_BODY_FILE and BENCH_CONTENT_TYPE must be set');
  return { bodyFile, contentType };
}

export function onTerminate(stop: () => Promise<void>): void {
  const handler = () => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
