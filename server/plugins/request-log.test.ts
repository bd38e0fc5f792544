// The request log: one line per request at info, never the Authorization header, and at the quiet
// level (warn) no request lines but every error still logged, so a failed write leaves a trace.
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from '../server.ts';
import { send } from '../testing/helpers.ts';

async function logged(level: string, act: (server: Awaited<ReturnType<typeof createServer>>) => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  const server = await createServer({ port: 0, logger: { level, stream } });
  await act(server);
  await server.stop();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const failingWrite = async (server: Awaited<ReturnType<typeof createServer>>) => {
  await send(server, { method: 'GET', url: '/v1/pets' });
  server.app.store.create = () => Promise.reject(new Error('ENOSPC: no space left on device'));
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Lost', categoryId: 1 } });
  assert.is(res.status, 500);
  assert.equal(res.body, { code: 'internal_error', message: 'An unexpected error occurred.', status: 500 });
};

test('at info, every request has a line, without its Authorization header', async () => {
  const lines = await logged('info', failingWrite);
  const statuses = lines.filter((l) => l.res).map((l) => (l.res as { statusCode: number }).statusCode);
  assert.equal(statuses, [200, 500]);
  assert.not.ok(JSON.stringify(lines).includes('test-enterprise-key'));
});

test('quiet (warn): no request lines, but the failed write is logged as an error with its cause', async () => {
  const lines = await logged('warn', failingWrite);
  assert.not.ok(
    lines.some((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 200),
    'no line for the 200',
  );
  const errors = lines.filter((l) => Number(l.level) >= 50);
  assert.ok(errors.length >= 1, JSON.stringify(lines));
  assert.match(JSON.stringify(errors), /ENOSPC: no space left on device/);
});

test('a query parameter named like a secret is logged redacted', async () => {
  const lines = await logged('info', async (server) => {
    await send(server, { method: 'GET', url: '/v1/pets?limit=1&api_key=s3cr3t-in-query' });
  });
  const urls = lines.filter((l) => l.req).map((l) => (l.req as { url: string }).url);
  assert.is(urls.length, 1);
  assert.match(urls[0]!, /limit=1/);
  assert.not.ok(JSON.stringify(lines).includes('s3cr3t-in-query'));
});

test('quiet (warn): the URL of an error line has its secret-named query parameter redacted too', async () => {
  const lines = await logged('warn', async (server) => {
    server.app.store.create = () => Promise.reject(new Error('ENOSPC: no space left on device'));
    await send(server, { method: 'POST', url: '/v1/pets?session_token=s3cr3t-in-query', payload: { name: 'Lost', categoryId: 1 } });
  });
  const urls = lines.filter((l) => l.req).map((l) => (l.req as { url: string }).url);
  assert.ok(urls.length >= 1, JSON.stringify(lines));
  assert.match(urls[0]!, /session_token=%3Credacted%3E/);
  assert.not.ok(JSON.stringify(lines).includes('s3cr3t-in-query'));
});

test.run();
