// Date tells the server's clock, not the machine's: every kind of answer (a pet, an Error body, a 429,
// the admin API, answers from below hapi and the live view's stream) on a manual clock far from now.
import type { Server } from '@hapi/hapi';
import { get } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatHttpDate } from '../../spec/rules/fields.js';
import { ManualClock } from '../clock.ts';
import { createServer } from '../server.ts';
import { exchange } from '../testing/raw-http.ts';
import { dateHeader } from './date.ts';
import { LIVE_VIEW_PATH } from './live-view.ts';

const START = Date.UTC(2031, 4, 6, 7, 8, 9, 500);
const ADMIN = 'date-admin-token-0123456789';
const KEY = 'date-tiny-client-key';
const clock = new ManualClock(START);
let server: Server;
let port: number;

const t = suite('Date from the server clock');
t.before(async () => {
  server = await createServer({
    host: '127.0.0.1',
    port: 0,
    logger: false,
    clock,
    adminToken: ADMIN,
    faults: true,
    apiKeys: [
      { key: KEY, plan: 'free', limits: { perMinute: 1, perDay: 100 } },
      { key: 'date-enterprise-key', plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } },
    ],
  });
  await server.start();
  port = Number(server.info.port);
});
t.after(() => server.stop());

const cases: Array<{ name: string; method?: string; url: string; authorization?: string; headers?: Record<string, string>; status: number }> = [
  { name: 'a list of pets', url: '/v1/pets?limit=1', authorization: KEY, status: 200 },
  { name: 'over the minute limit', url: '/v1/pets?limit=1', authorization: KEY, status: 429 },
  { name: 'an operation past its sunset (the clock is in 2031)', url: '/v1/pets/1', authorization: 'date-enterprise-key', status: 410 },
  { name: 'no key', url: '/v1/pets', status: 401 },
  { name: 'an injected 503', url: '/v1/pets', authorization: 'date-enterprise-key', headers: { prefer: 'code=503' }, status: 503 },
  { name: 'the admin API', url: '/__admin/clock', authorization: ADMIN, status: 200 },
  { name: 'no route', url: '/nowhere', authorization: 'date-enterprise-key', status: 404 },
];

for (const c of cases) {
  t(`${c.name}: Date is the server clock's`, async () => {
    const res = await server.inject({
      method: c.method ?? 'GET',
      url: c.url,
      headers: { ...(c.authorization ? { authorization: `Bearer ${c.authorization}` } : {}), ...c.headers },
    });
    assert.is(res.statusCode, c.status, res.payload);
    assert.is(res.headers.date, formatHttpDate(clock.now()));
  });
}

t('over a socket, hapi answers and answers from below hapi carry the clock too', async () => {
  const ok = await exchange(port, [`GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer date-enterprise-key\r\nConnection: close\r\n\r\n`]);
  assert.is(ok.status, 200);
  assert.is(ok.headers.date, formatHttpDate(clock.now()));
  const bad = await exchange(port, ['GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']);
  assert.is(bad.status, 400);
  assert.is(bad.headers.date, formatHttpDate(clock.now()));
  const expect = await exchange(port, ['POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}']);
  assert.is(expect.status, 417);
  assert.is(expect.headers.date, formatHttpDate(clock.now()));
});

t("the live view's stream, which writes its own head, carries the clock", async () => {
  const date = await new Promise<string | undefined>((resolve, reject) => {
    const req = get(`${server.info.uri}${LIVE_VIEW_PATH}/events`, { headers: { authorization: `Bearer ${ADMIN}` } }, (res) => {
      resolve(res.headers.date);
      req.destroy();
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
  });
  assert.is(date, formatHttpDate(clock.now()));
});

t('after the admin API moves the clock, Date moves with it', async () => {
  const moved = await server.inject({
    method: 'POST',
    url: '/__admin/clock/advance',
    headers: { authorization: `Bearer ${ADMIN}` },
    payload: { seconds: 3600 },
  });
  assert.is(moved.statusCode, 200, moved.payload);
  const res = await server.inject({ url: '/v1/pets?limit=1', headers: { authorization: 'Bearer date-enterprise-key' } });
  assert.is(res.headers.date, formatHttpDate(START + 3600_000));
});

t.run();

const cached = suite('dateHeader');
cached('formats the clock once a second and follows it across seconds', () => {
  const c = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 0, 999));
  const date = dateHeader(c);
  assert.is(date(), 'Tue, 01 Jan 2030 00:00:00 GMT');
  c.advance(1);
  assert.is(date(), 'Tue, 01 Jan 2030 00:00:01 GMT');
  c.advance(86_400_000);
  assert.is(date(), 'Wed, 02 Jan 2030 00:00:01 GMT');
});
cached.run();
