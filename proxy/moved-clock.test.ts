// Issue 39, point 2: the reference server's admin clock moved forward, watched through the judging
// proxy on real time. Date follows the moved clock like X-RateLimit-Reset and Retry-After, so the
// proxy reads one consistent time: no must finding on the reference server.
import type { Server } from '@hapi/hapi';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHttpDate } from '../spec/rules/fields.js';
import { createServer } from '../server/server.ts';
import { parseProxyCli, runProxy } from './cli.ts';

const ADMIN = 'moved-clock-admin-token';
const KEY = 'moved-clock-client-key';
const MOVED_S = 180;

test('a clock moved by the admin API moves Date too; the proxy finds nothing at must', async () => {
  const server: Server = await createServer({
    host: '127.0.0.1',
    port: 0,
    storage: { type: 'memory' },
    logger: false,
    adminToken: ADMIN,
    apiKeys: [{ key: KEY, plan: 'free', limits: { perMinute: 3, perDay: 1000 } }],
  });
  await server.start();
  const dir = await mkdtemp(join(tmpdir(), 'moved-clock-'));
  try {
    const moved = await fetch(`${server.info.uri}/__admin/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: MOVED_S }),
    });
    assert.is(moved.status, 200);
    const parsed = parseProxyCli(['--target', server.info.uri, '--port', '0', '--json', join(dir, 'r.json')], {});
    if (parsed === 'help') throw new Error('unexpected --help');
    const seen: Array<{ status: number; date: number; reset: number; retryAfter: string | null }> = [];
    let out = '';
    const report = await runProxy(parsed, {
      stdout: (t) => (out += t),
      until: async (url) => {
        for (let i = 0; i < 5; i++) {
          const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
          await res.arrayBuffer();
          seen.push({
            status: res.status,
            date: parseHttpDate(res.headers.get('date') ?? '', Date.now()) ?? Number.NaN,
            reset: Number(res.headers.get('x-ratelimit-reset')) * 1000,
            retryAfter: res.headers.get('retry-after'),
          });
        }
      },
    });
    // Date is the moved clock's: about MOVED_S ahead of this machine's, like the window's reset.
    for (const s of seen) {
      assert.ok(s.date - Date.now() > (MOVED_S - 30) * 1000, `Date ${new Date(s.date).toISOString()} is the moved clock's`);
      assert.ok(s.reset > s.date && s.reset - s.date <= 61_000, `Reset ${s.reset} within a minute of Date ${s.date}`);
    }
    const refused = seen.filter((s) => s.status === 429);
    assert.is(refused.length, 2);
    for (const r of refused) assert.ok(Math.abs(r.date + Number(r.retryAfter) * 1000 - r.reset) <= 2000, JSON.stringify(r));
    const must = report.findings.filter((f) => f.level === 'must' && f.side === 'server');
    assert.equal(must, [], out);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
