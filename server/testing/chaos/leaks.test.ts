import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir, userInfo } from 'node:os';
import { ROOT } from '../process.ts';
import { assertNoLeaks, BodyWatch, leakIn } from './leaks.ts';

// What the search must catch (the bodies issue 30 found, and their kin) and what it must let pass.
const cases: Array<[string, string, boolean]> = [
  ['/healthz with PostgreSQL down, before', 'The store does not answer: connect ECONNREFUSED 127.0.0.1:5298', true],
  ['/healthz with PostgreSQL down, now', 'The store does not answer: connection refused (ECONNREFUSED)', false],
  ['an IPv6 loopback', 'connect ECONNREFUSED ::1:5432', true],
  ['a full IPv6 address', 'from 2001:0db8:0000:0000:0000:ff00:0042:8329', true],
  ['a host and port', 'no answer from db.internal:5432', true],
  ['the database user', 'password authentication failed for user "postgres"', true],
  ['nobody', 'EACCES as nobody', true],
  ['the OS user', `running as ${userInfo().username}`, true],
  ['a temporary folder', 'EACCES writing /tmp/chaos-abc/data/db.json', true],
  ['the data folder', `EROFS at ${tmpdir()}`, true],
  ['the checkout, wherever it lies', `cannot read ${ROOT}fixtures/pets.json`, true],
  ['a home', 'cannot read /home/app/db.json', true],
  ['/var', 'cannot read /var/lib/db.json', true],
  ['/root', 'cannot read /root/db.json', true],
  ['the file store naming its errno', 'The store cannot make writes durable: storage: ENOSPC writing the journal.', false],
  ['a Retry-After sentence', 'The store is unavailable; retry after 2 seconds.', false],
  ['PostgreSQL by name', 'PostgreSQL does not answer', false],
  ['the ok body', '{"status":"ok"}', false],
];

for (const [name, text, leaks] of cases) {
  test(`${name}: ${leaks ? 'caught' : 'passes'}`, () => {
    assert.is(leakIn(text) !== undefined, leaks, leakIn(text));
  });
}

test('only 5xx and /healthz bodies are searched, and only leaks are kept', () => {
  const watch = new BodyWatch();
  watch.see('http://127.0.0.1:1/v1/pets', 400, { message: 'at 127.0.0.1:1' });
  watch.see('http://127.0.0.1:1/v1/pets', 503, { message: 'retry later' });
  watch.see('http://127.0.0.1:1/healthz', 200, { status: 'ok' });
  watch.see('http://127.0.0.1:1/healthz', 503, { message: 'connect ECONNREFUSED 127.0.0.1:5298' });
  assert.is(watch.checked, 3);
  assert.is(watch.leaked, 1);
  assert.is(watch.leaks[0]?.status, 503);
});

test('a search that saw no 5xx body proved nothing: it fails, unless the scenarios need not cause one', () => {
  const watch = new BodyWatch();
  assert.throws(() => assertNoLeaks({ watch }), /no 5xx or \/healthz body was seen/);
  watch.see('http://127.0.0.1:1/healthz', 200, { status: 'ok' });
  assert.throws(() => assertNoLeaks({ watch }), /no 5xx body was seen/);
  assert.not.throws(() => assertNoLeaks({ watch, failureOptional: true }));
  watch.see('http://127.0.0.1:1/v1/pets', 503, { message: 'retry later' });
  assert.not.throws(() => assertNoLeaks({ watch }));
  watch.see('http://127.0.0.1:1/v1/pets', 500, { message: 'at /var/lib/db.json' });
  assert.throws(() => assertNoLeaks({ watch }), /1 of 3 bodies leaked/);
});

test.run();
