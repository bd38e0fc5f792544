// The traffic as HAR 1.2, written as it passes (each body as captured): nothing is held for the end.
// Exchanges come redacted (the proxy CLI hands it the copy onExchange redacts with every key known), and
// are not redacted again here: that pass would be a second one over both bodies of every exchange. A
// disk behind by more than MAX_BEHIND_BYTES gets entries counted, not written, and the comment says how many.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Exchange } from '../judge/index.ts';

const MAX_BEHIND_BYTES = 16 * 1024 * 1024;

/** One exchange, already redacted, as a HAR entry. */
export function harEntry(ex: Exchange): object {
  const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));
  const url = new URL(ex.request.url);
  const res = ex.response;
  const wait = Math.max(0, ex.receivedAt - ex.sentAt);
  const cut = (size: number | undefined) => (size !== undefined ? ` (the first part of ${size} bytes)` : '');
  const comments = [
    ex.outside ? `outside the description: ${ex.outside}` : ex.operationId,
    ...(ex.request.truncatedFrom !== undefined ? [`request body${cut(ex.request.truncatedFrom)}`] : []),
    ...(res?.truncatedFrom !== undefined ? [`response body${cut(res.truncatedFrom)}`] : []),
  ];
  return {
    startedDateTime: new Date(ex.sentAt).toISOString(),
    time: wait,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(ex.request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(ex.request.body !== undefined ? { postData: { mimeType: ex.request.headers['content-type'] ?? '', text: ex.request.body } } : {}),
      headersSize: -1,
      bodySize: ex.request.truncatedFrom ?? ex.request.body?.length ?? 0,
    },
    response: {
      status: res?.status ?? 0,
      statusText: ex.error ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(res?.headers ?? {}),
      content: { size: res?.truncatedFrom ?? res?.body.length ?? 0, mimeType: res?.headers['content-type'] ?? '', text: res?.body ?? '' },
      redirectURL: res?.headers.location ?? '',
      headersSize: -1,
      bodySize: res?.truncatedFrom ?? res?.body.length ?? -1,
    },
    cache: {},
    timings: { send: 0, wait, receive: 0 },
    comment: comments.join('; '),
  };
}

const HEAD = '{\n  "log": {\n    "version": "1.2",\n    "creator": { "name": "adoption-kit proxy", "version": "1" },\n    "entries": [\n';

/** A HAR file being written: add() each exchange as it is judged, close() at the end. */
export class HarWriter {
  readonly #stream: WriteStream;
  #entries = 0;
  #skipped = 0;
  /** A write that failed (a full disk): the rest is counted, not written, and the run goes on. */
  #error: Error | undefined;

  private constructor(stream: WriteStream) {
    this.#stream = stream;
    stream.on('error', (error) => (this.#error ??= error));
    stream.write(HEAD);
  }

  static async open(path: string): Promise<HarWriter> {
    await mkdir(dirname(path), { recursive: true });
    const stream = createWriteStream(path);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return new HarWriter(stream);
  }

  /** Why the file can no longer be written (a full disk), once a write has failed. */
  get error(): string | undefined {
    return this.#error?.message;
  }

  add(exchange: Exchange): void {
    if (this.#error || this.#stream.writableLength > MAX_BEHIND_BYTES) {
      this.#skipped++;
      return;
    }
    this.#stream.write(`${this.#entries++ === 0 ? '' : ',\n'}      ${JSON.stringify(harEntry(exchange))}`);
  }

  /** Ends the file; says how many entries were written and how many were not. */
  async close(): Promise<{ entries: number; skipped: number; error?: string }> {
    if (this.#error) return { entries: this.#entries, skipped: this.#skipped, error: this.#error.message };
    const comment = this.#skipped > 0 ? `${this.#skipped} exchanges not written: the disk fell behind the traffic` : `${this.#entries} exchanges`;
    this.#stream.end(`\n    ],\n    "comment": ${JSON.stringify(comment)}\n  }\n}\n`);
    await new Promise<void>((resolve) => {
      this.#stream.once('finish', resolve);
      this.#stream.once('error', () => resolve());
    });
    return { entries: this.#entries, skipped: this.#skipped, ...(this.#error ? { error: (this.#error as Error).message } : {}) };
  }
}
