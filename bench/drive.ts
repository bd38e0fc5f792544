// The autocannon load generator (used when wrk is not installed), one process for the whole run:
// runs autocannon against one URL at a time and reports counts, a latency histogram at microsecond
// resolution (autocannon's own keeps whole milliseconds) and, for creates, the ids acknowledged.
import autocannon from 'autocannon';
import type { DriveRequest, DriveResult } from './load.ts';

async function drive(request: DriveRequest): Promise<DriveResult> {
  const latency = new Map<number, number>();
  const ids: number[] = [];
  let ok = 0;
  let bytes = 0;
  const unexpected: Record<string, number> = {};
  const instance = autocannon({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: request.connections,
    duration: request.duration,
    timeout: 10,
    ...(request.collectIds
      ? {
          requests: [
            {
              method: request.method,
              body: request.body,
              onResponse: (status: number, body: string) => {
                if (status !== request.expectStatus) return;
                const id = /"id"\s*:\s*(\d+)/.exec(body)?.[1];
                if (id) ids.push(Number(id));
              },
            },
          ],
        }
      : {}),
  });
  instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
    bytes += resBytes;
    if (statusCode === request.expectStatus) {
      ok++;
      const us = Math.round(responseTime * 1000);
      latency.set(us, (latency.get(us) ?? 0) + 1);
      if (ok === request.stopAfterOk) instance.stop();
    } else {
      unexpected[statusCode] = (unexpected[statusCode] ?? 0) + 1;
    }
  });
  const result = await instance;
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    type: 'result',
    id: request.id,
    ok,
    unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
    bytes,
    latency: [...latency],
    ids: request.collectIds ? ids : undefined,
  };
}

// One driver serves the whole run, one measurement at a time, so that every case pays the same
// (nil) start-up cost and the load generator is the same process for all of them.
if (process.send && process.env.BENCH_ROLE === 'drive') {
  let queue = Promise.resolve();
  process.on('message', (request: DriveRequest) => {
    queue = queue.then(() =>
      drive(request).then(
        (result) => void process.send!(result),
        (error: Error) => {
          process.stderr.write(`drive: ${error.stack ?? error.message}\n`);
          process.exit(1);
        },
      ),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
