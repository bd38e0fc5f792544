// The load generator, one process for the whole run: runs autocannon against one URL at a time and reports
// counts and every expected-status latency (in ms, full resolution, written to a binary file
// because autocannon's own histogram keeps whole milliseconds).
import { writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { DriveRequest, DriveResult } from './load.ts';

class Samples {
  #data = new Float64Array(1 << 16);
  #length = 0;
  push(value: number) {
    if (this.#length === this.#data.length) {
      const grown = new Float64Array(this.#data.length * 2);
      grown.set(this.#data);
      this.#data = grown;
    }
    this.#data[this.#length++] = value;
  }
  get bytes(): Uint8Array {
    return new Uint8Array(this.#data.buffer, 0, this.#length * 8);
  }
}

async function drive(request: DriveRequest): Promise<DriveResult> {
  const samples = new Samples();
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
  });
  instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
    if (statusCode === request.expectStatus) {
      ok++;
      bytes += resBytes;
      samples.push(responseTime);
      if (ok === request.stopAfterOk) instance.stop();
    } else {
      unexpected[statusCode] = (unexpected[statusCode] ?? 0) + 1;
    }
  });
  const result = await instance;
  writeFileSync(request.samplesFile, samples.bytes);
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  return { type: 'result', id: request.id, ok, unexpected, errors: result.errors, timeouts: result.timeouts, seconds, bytes, samplesFile: request.samplesFile };
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
