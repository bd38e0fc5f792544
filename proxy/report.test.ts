// The proxy's verdict and its report formats, from made-up findings: which --fail-on exits 1 on what,
// how a finding reads on the console, and that JUnit and HAR say what they must.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../judge/exchange.ts';
import type { Finding } from './findings.ts';
import { buildReport, findingLine, formatJUnit, type FailOn } from './report.ts';
import { HarWriter } from './har.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const finding = (level: 'must' | 'should', side: 'server' | 'client' = 'client'): Finding => ({
  atMs: 12_300,
  key: 'test-f…',
  side,
  id: side === 'client' ? 'client.waits-retry-after' : 'schema.every-response',
  level,
  message: 'what was seen',
  seq: 7,
});

const cases: Array<[FailOn, Finding[], number]> = [
  ['none', [finding('must')], 0],
  ['must', [], 0],
  ['must', [finding('should')], 0],
  ['must', [finding('should'), finding('must', 'server')], 1],
  ['should', [finding('should')], 1],
  ['should', [], 0],
];
for (const [failOn, findings, exitCode] of cases) {
  test(`--fail-on ${failOn} with ${findings.map((f) => f.level).join(', ') || 'no'} findings exits ${exitCode}`, () => {
    assert.is(buildReport({ target: 't', startedAt: 0, endedAt: 1, keys: [], findings, requests: 0, failOn }).exitCode, exitCode);
  });
}

test('a finding reads: time since start, key, side, level, check, what was seen, exchange number', () => {
  assert.is(findingLine(finding('must'), 0), '  +12.3 s  test-f…      client MUST   client.waits-retry-after: what was seen (#7)');
});

test('JUnit has a testsuite per key; HAR, streamed to its file, an entry per exchange with the redacted headers it was given', async () => {
  const report = buildReport({
    target: 'http://t',
    startedAt: 0,
    endedAt: 1000,
    requests: 1,
    failOn: 'must',
    findings: [],
    keys: [
      {
        key: 'test-f…',
        requests: 1,
        refused: 0,
        server: [],
        client: {
          key: 'test-f…',
          keyId: 'key-1',
          plan: 'unknown',
          requests: 1,
          refused: 0,
          ready: false,
          warnings: 1,
          timeline: [],
          obligations: {
            waitsRetryAfter: { verdict: 'no', detail: '1 of 1 retries came before Retry-After' },
            backsOffExponentially: { verdict: 'not observed', detail: 'no 429 was answered twice in a row' },
            stopsWhileBanned: { verdict: 'not observed', detail: 'the key was never banned' },
            avoidsDeprecated: { verdict: 'no', detail: '1 of 1 requests' },
          },
        },
        timeline: { key: 'test-f…', points: [] },
        timelineDropped: 0,
        sample: { exchanges: [], dropped: 1 },
      },
    ],
  });
  const xml = formatJUnit(report);
  assert.match(xml, /<testsuite name="key test-f…" tests="4" failures="1"/);
  assert.match(xml, /<failure message="1 of 1 retries came before Retry-After" type="must"\/>/);
  assert.match(xml, /<system-out>WARNING \(should\): 1 of 1 requests<\/system-out>/);
  const exchange: Exchange = {
    seq: 1,
    operationId: 'listPets',
    purpose: 'GET /v1/pets',
    request: { method: 'GET', url: 'http://t/v1/pets?limit=1&api_key=%3Credacted%3E', headers: { authorization: 'Bearer test…(13 chars)' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[]' },
    sentAt: 1000,
    receivedAt: 1012,
  };
  const dir = await mkdtemp(join(tmpdir(), 'proxy-har-'));
  const writer = await HarWriter.open(join(dir, 'r.har'));
  writer.add(exchange);
  assert.equal(await writer.close(), { entries: 1, skipped: 0 });
  const text = await readFile(join(dir, 'r.har'), 'utf8');
  await rm(dir, { recursive: true, force: true });
  const har = JSON.parse(text) as {
    log: {
      version: string;
      entries: Array<{ time: number; request: { queryString: Array<{ name: string; value: string }>; headers: unknown[] }; response: { status: number } }>;
    };
  };
  assert.is(har.log.version, '1.2');
  assert.is(har.log.entries[0]!.time, 12);
  assert.equal(har.log.entries[0]!.request.queryString, [
    { name: 'limit', value: '1' },
    { name: 'api_key', value: '<redacted>' },
  ]);
  assert.equal(har.log.entries[0]!.request.headers, [{ name: 'authorization', value: 'Bearer test…(13 chars)' }]);
});

test.run();
