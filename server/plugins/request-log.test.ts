// The request log: one line per request at info, never the Authorization header, and at the quiet
// level (warn) no request lines but every error still logged, so a failed write leaves a trace.
import { get } from 'node:http';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from '../server.ts';
import { send } from '../testing/helpers.ts';
import { LIVE_VIEW_PATH } from './live-view.ts';

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

// Issue 39, point 1: a live-view watcher that leaves once took the process down (the abandoned
// request's response is hapi's abandon symbol, not an object) as `npm start` runs it, logging on.
test('at info, a live-view watcher that leaves is logged and the server goes on answering', async () => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  const server = await createServer({
    host: '127.0.0.1',
    port: 0,
    storage: { type: 'memory' },
    adminToken: 'leaving-watcher-token',
    logger: { level: 'info', stream },
  });
  await server.start();
  try {
    await new Promise<void>((resolve, reject) => {
      const req = get(`${server.info.uri}${LIVE_VIEW_PATH}/events`, { headers: { authorization: 'Bearer leaving-watcher-token' } }, (res) => {
        assert.is(res.statusCode, 200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    // The server notices the close on its next turn; a request after it must still be answered.
    for (let i = 0; i < 20 && !text.includes('/events'); i++) await new Promise((r) => setTimeout(r, 50));
    const after = await fetch(`${server.info.uri}/v1/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } });
    assert.is(after.status, 200);
  } finally {
    await server.stop();
  }
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { req?: { url: string }; res?: { statusCode: number | null } });
  const watcher = lines.find((l) => l.req?.url.endsWith('/events'));
  assert.ok(watcher, text);
  assert.is(watcher!.res!.statusCode, 200);
});

test.run();
