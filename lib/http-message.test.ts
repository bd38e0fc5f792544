// A body of any size streams past a BodyCapture: it keeps the first bytes up to its limit, counts
// them all, and says whether the body went on past what it kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { get, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { BodyCapture, flatHeaders, flatRawHeaders } from './http-message.ts';

const cases: Array<[what: string, limit: number, chunks: string[], kept: string, total: number, truncated: boolean]> = [
  ['nothing', 4, [], '', 0, false],
  ['a body within the limit', 8, ['abc', 'def'], 'abcdef', 6, false],
  ['a body exactly at the limit', 6, ['abc', 'def'], 'abcdef', 6, false],
  ['a chunk across the limit: its first part kept', 4, ['abc', 'def'], 'abcd', 6, true],
  ['chunks past the limit: counted, not kept', 3, ['abc', 'def', 'ghi'], 'abc', 9, true],
  ['a limit of nothing', 0, ['abc'], '', 3, true],
];
for (const [what, limit, chunks, kept, total, truncated] of cases) {
  test(what, () => {
    const capture = new BodyCapture(limit);
    for (const c of chunks) capture.add(Buffer.from(c));
    assert.is(capture.bytes().toString(), kept);
    assert.is(capture.total, total);
    assert.is(capture.truncated, truncated);
  });
}

test('the part kept of a big chunk is a copy: the chunk itself is not held', () => {
  const capture = new BodyCapture(2);
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  capture.add(chunk);
  assert.is(capture.bytes().buffer === chunk.buffer, false);
});

test('flatRawHeaders reads the raw headers as flatHeaders reads the ones Node built: repeats kept first, joined, cookies with "; "', async () => {
  const answer = [
    'HTTP/1.1 200 OK',
    'Content-Type: application/json',
    'content-type: text/plain',
    'Set-Cookie: a=1',
    'Set-Cookie: b=2',
    'Cookie: c=3',
    'cookie: d=4',
    'X-List: one',
    'x-list: two',
    'Retry-After: 5',
    'Retry-After: 9',
    'RateLimit-Policy: "m";q=60;w=60',
    'Content-Length: 2',
    'Connection: close',
    '',
    '{}',
  ].join('\r\n');
  const server = createNetServer((socket) => socket.once('data', () => socket.end(answer)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const message = await new Promise<IncomingMessage>((resolve, reject) => get({ host: '127.0.0.1', port }, resolve).on('error', reject));
    message.resume();
    assert.equal(flatRawHeaders(message.rawHeaders), flatHeaders(message));
    assert.is(flatRawHeaders(message.rawHeaders)['x-list'], 'one, two');
  } finally {
    server.close();
  }
});

test.run();
