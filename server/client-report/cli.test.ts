// The client-report command against servers that are not what it expects: the admin token goes to
// --base-url's origin only, a report is read up to MAX_REPORT_BYTES, and a body that is no report is
// a reason to exit 2 (could not read), never a crash or the 1 of a client that broke a rule.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnChild } from '../../lib/processes.ts';
import { ROOT } from '../testing/process.ts';
import { MAX_REPORT_BYTES } from './cli.ts';
import { sourceArgs } from '../../lib/testing/run-source.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function command(origin: string): Promise<{ status: number | null; stderr: string }> {
  const args = [...sourceArgs('bin/adoption-kit.ts'), 'client-report', '--base-url', origin, '--admin-token', 'the-admin-token'];
  const child = spawnChild(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stderr })));
}

/** Writes 1 MiB chunks while the reader takes them, at most `mib` of them. */
function endless(mib: number): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const more = () => {
      while (sent < mib && !res.destroyed) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.write('{"generatedAt":"x","clients":[');
    more();
  };
}

const CASES: Array<{ what: string; handler: (other: string) => Handler; stderr: RegExp }> = [
  {
    what: 'a redirect to another origin',
    handler: (other) => (_req, res) => res.writeHead(307, { location: `${other}/__admin/clients` }).end(),
    stderr: /answered 307, a redirect, which is not followed \(the token goes to http:\/\/127\.0\.0\.1:\d+ only\)/,
  },
  {
    what: 'a body that announces more than the cap',
    handler: () => (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_REPORT_BYTES + 1) });
      res.write('{');
    },
    stderr: /larger than \d+ bytes, not read further/,
  },
  { what: 'a chunked body past the cap', handler: () => endless(MAX_REPORT_BYTES / 1024 / 1024 + 16), stderr: /larger than \d+ bytes, not read further/ },
  { what: 'a body that is not JSON', handler: () => (_req, res) => res.writeHead(200).end('<html>'), stderr: /did not answer JSON/ },
  {
    what: 'JSON that is not a client report',
    handler: () => (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"clients":null}'),
    stderr: /not a client report/,
  },
];

test('client-report exits 2 with a reason, sends the token nowhere else and reads no more than its cap, for each odd answer', async () => {
  const seenElsewhere: string[] = [];
  const elsewhere = await listen((req, res) => {
    seenElsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('{}');
  });
  try {
    await Promise.all(
      CASES.map(async ({ what, handler, stderr }) => {
        const target = await listen(handler(elsewhere.origin));
        try {
          const run = await command(target.origin);
          assert.is(run.status, 2, `${what}: ${run.stderr}`);
          assert.match(run.stderr, stderr, `${what}: ${run.stderr}`);
        } finally {
          await stop(target.server);
        }
      }),
    );
    assert.equal(seenElsewhere, []);
  } finally {
    await stop(elsewhere.server);
  }
});

test.run();
