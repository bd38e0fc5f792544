// Every 5xx Error body goes through one redaction, whatever raised it: a failure's own words keep
// their code and lose addresses, users, database names and paths. 4xx bodies are the server's own
// words (or the client's own request) and pass unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError, storageUnavailable } from '../errors.ts';
import { send, testServer } from '../testing/helpers.ts';

const cases: Array<[string, () => Error, { code: string; message: string; status: number }]> = [
  [
    'storage_unavailable carrying a refused connection',
    () => storageUnavailable('The store does not answer: connect ECONNREFUSED 127.0.0.1:5298'),
    { code: 'storage_unavailable', message: 'The store does not answer: connection refused (ECONNREFUSED)', status: 503 },
  ],
  [
    'service_unavailable carrying a path and a user',
    () => apiError('service_unavailable', `cannot write /tmp/data/db.json as user "nobody"`),
    { code: 'service_unavailable', message: 'cannot write <path> as the user', status: 503 },
  ],
  [
    'internal_error named with a URL',
    () => apiError('internal_error', 'lost postgres://postgres:secret@db.internal:5432/pets'),
    { code: 'internal_error', message: 'lost <url>', status: 500 },
  ],
  [
    'an unnamed error',
    () => new Error('connect ECONNREFUSED 127.0.0.1:6379'),
    { code: 'internal_error', message: 'An unexpected error occurred.', status: 500 },
  ],
  [
    'a 4xx keeps its words',
    () => apiError('invalid_parameter', '"cursor" must match /^[A-Za-z0-9_-]+$/'),
    { code: 'invalid_parameter', message: '"cursor" must match /^[A-Za-z0-9_-]+$/', status: 400 },
  ],
];

for (const [name, raise, body] of cases) {
  test(`${name}: ${JSON.stringify(body.message)}`, async () => {
    const server = await testServer();
    server.route({
      method: 'GET',
      path: '/raise',
      options: { auth: false, plugins: { 'rate-limit': false } },
      handler: () => {
        throw raise();
      },
    });
    const res = await send(server, { method: 'GET', url: '/raise' });
    assert.is(res.status, body.status);
    assert.equal(res.body, body);
  });
}

test.run();
