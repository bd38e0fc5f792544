// A server may close a kept-alive connection at any time (RFC 9112 §9.5), also just as the kit sends
// its next request on it. An idempotent request that meets such a close before any answer is sent
// once more on a new connection (RFC 9110 §9.2.2), and the exchange says so; any other request is not.
// Real sockets on 127.0.0.1, against a server that closes after every HEAD, as waitress does.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpClient } from './http.ts';
import { echo, startClosingServer, type ClosingOptions, type ClosingServer } from './testing/closing-server.ts';
import { NetworkFailure, Transport, type RawResponse } from './transport.ts';

const TIMEOUT_MS = 5000;

async function withServer(options: ClosingOptions, body: (server: ClosingServer, transport: Transport) => Promise<void>): Promise<void> {
  const server = await startClosingServer(echo, options);
  const transport = new Transport({ origin: server.origin, maxBodyBytes: 1 << 20 });
  try {
    await body(server, transport);
  } finally {
    transport.close();
    await server.close();
  }
}

const send = (transport: Transport, server: ClosingServer, method: string, seq: number, path = '/v1/pets'): Promise<RawResponse> =>
  transport.send({
    method,
    url: `${server.origin}${path}`,
    headers: {},
    timeoutMs: TIMEOUT_MS,
    seq,
    ...(method === 'POST' || method === 'PUT' ? { body: Buffer.from('{}') } : {}),
  });

const resend = suite('an idempotent request on a connection closed after a HEAD');

const WHEN: Array<ClosingOptions['when']> = ['at-once', 'when-reused'];
const IDEMPOTENT = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'];

for (const when of WHEN) {
  for (const method of IDEMPOTENT) {
    resend(`closed ${when}: ${method} is sent once more on a new connection, and its answer names the HEAD`, async () => {
      await withServer({ when }, async (server, transport) => {
        const first = await send(transport, server, 'HEAD', 1);
        assert.is(first.connection.reused, false);
        const answer = await send(transport, server, method, 2, '/v1/pets?limit=1');
        assert.is(answer.status, 200);
        assert.equal(answer.connection, {
          reused: true,
          closedBeforeAnswer: { after: { seq: 1, method: 'HEAD', url: `${server.origin}/v1/pets` }, error: 'ECONNRESET', resent: true },
        });
        // The second sending is the one the server answered; a close when reused dropped the first unanswered.
        assert.equal(server.received, ['HEAD /v1/pets', `${method} /v1/pets?limit=1`]);
        assert.equal(server.dropped, when === 'when-reused' ? [`${method} /v1/pets?limit=1`] : []);
      });
    });
  }
}

resend('a request sent again is sent only once: a second failure is a network failure', async () => {
  // Every request on /gone is dropped unanswered, on any connection.
  const server = await startClosingServer((req, res) => (req.url === '/gone' ? req.socket.destroy() : echo(req, res, Buffer.alloc(0))));
  const transport = new Transport({ origin: server.origin, maxBodyBytes: 1 << 20 });
  try {
    await send(transport, server, 'GET', 1, '/');
    const failed = await send(transport, server, 'GET', 2, '/gone').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failed instanceof NetworkFailure, String(failed));
    assert.is(failed.failure, 'ECONNRESET');
    assert.match(failed.message, /when sent again after ECONNRESET: the target closed the kept-alive connection after its answer to GET \S+\/ \(request 1\)/);
    assert.equal(failed.connection?.closedBeforeAnswer?.resent, true);
    assert.equal(server.received, ['GET /', 'GET /gone', 'GET /gone']);
  } finally {
    transport.close();
    await server.close();
  }
});

resend.run();

const notResent = suite('a request that is not idempotent');

for (const when of WHEN) {
  for (const method of ['POST', 'PATCH']) {
    notResent(`closed ${when}: ${method} is not sent again, and the failure says why`, async () => {
      await withServer({ when }, async (server, transport) => {
        await send(transport, server, 'HEAD', 1);
        const failed = await send(transport, server, method, 2).then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(failed instanceof NetworkFailure, String(failed));
        assert.is(failed.failure, 'ECONNRESET');
        assert.match(
          failed.message,
          new RegExp(`after its answer to HEAD \\S+/v1/pets \\(request 1\\).*not sent again, because ${method} is not idempotent \\(RFC 9110 §9\\.2\\.2\\)`),
        );
        assert.equal(failed.connection?.closedBeforeAnswer?.resent, false);
        assert.equal(server.received, ['HEAD /v1/pets'], 'the server never got it');
      });
    });
  }
}

notResent.run();

const announced = suite('a close announced with Connection: close');

announced('is no close under a request: the next one goes on a new connection, nothing is sent again', async () => {
  await withServer({ announce: true }, async (server, transport) => {
    const answers: RawResponse[] = [];
    for (const [i, method] of ['GET', 'HEAD', 'GET', 'HEAD', 'POST', 'GET'].entries()) answers.push(await send(transport, server, method, i + 1));
    assert.equal(
      answers.map((a) => a.connection),
      [{ reused: false }, { reused: true }, { reused: false }, { reused: true }, { reused: false }, { reused: true }],
    );
    assert.equal(server.dropped, []);
  });
});

announced.run();

const together = suite('requests in flight together');

for (const when of WHEN) {
  together(`closed ${when}: every GET after HEADs on 4 connections is answered, and each one sent again names a HEAD`, async () => {
    await withServer({ when }, async (server, transport) => {
      let seq = 0;
      // Four connections (the transport's default), each closed after its HEAD.
      await Promise.all([1, 2, 3, 4].map(() => send(transport, server, 'HEAD', ++seq)));
      const answers = await Promise.all(Array.from({ length: 12 }, () => send(transport, server, 'GET', ++seq)));
      assert.ok(
        answers.every((a) => a.status === 200),
        answers.map((a) => a.status).join(),
      );
      const resent = answers.filter((a) => a.connection.closedBeforeAnswer);
      assert.ok(resent.length > 0, 'some GET went on a connection closed after its HEAD');
      for (const a of resent) {
        assert.is(a.connection.closedBeforeAnswer?.after?.method, 'HEAD');
        assert.ok((a.connection.closedBeforeAnswer?.after?.seq ?? 0) <= 4);
      }
      if (when === 'when-reused') assert.is(server.dropped.length, resent.length);
      assert.is(server.received.filter((r) => r.startsWith('GET')).length, 12, 'each GET answered once');
    });
  });
}

together.run();

const client = suite('HttpClient: the exchange of a request sent again');

client('holds the answer to the second sending, counts as answered, and names the close', async () => {
  await withServer({ when: 'when-reused' }, async (server) => {
    const http = new HttpClient({ baseUrl: `${server.origin}/v1`, apiKey: 'k', clock: { now: () => Date.now() }, timeoutMs: TIMEOUT_MS });
    try {
      const head = await http.send({ operationId: 'listPets', purpose: 'list with HEAD', method: 'HEAD', path: '/pets' });
      // More requests in a row than the silence rule allows without an answer: each is sent again and answered.
      for (let i = 0; i < 4; i++) {
        const get = await http.send({ operationId: 'listPets', purpose: 'list', method: 'GET', path: '/pets' });
        await http.send({ operationId: 'listPets', purpose: 'list with HEAD', method: 'HEAD', path: '/pets' });
        assert.is(get.response?.status, 200);
        assert.is(get.error, undefined);
        assert.is(get.connection?.closedBeforeAnswer?.resent, true);
      }
      const get = http.exchanges[1]!;
      assert.equal(get.connection?.closedBeforeAnswer?.after, { seq: head.seq, method: 'HEAD', url: `${server.origin}/v1/pets` });
      assert.is(http.halted, undefined);
      assert.match(http.silence.lastAnswered ?? '', /^HEAD .*\(200, request 9\)$/);
      const post = await http.send({ operationId: 'createPet', purpose: 'create', method: 'POST', path: '/pets', json: { name: 'Rex' } });
      assert.is(post.response, undefined);
      assert.match(
        post.error ?? '',
        /^ECONNRESET: the target closed the kept-alive connection after its answer to HEAD .*not sent again, because POST is not idempotent/,
      );
      assert.equal(post.connection?.closedBeforeAnswer?.resent, false);
    } finally {
      http.close();
    }
  });
});

client('16 HEADs and GETs in flight together: every one answered, each sent again naming a HEAD answered before it', async () => {
  await withServer({ when: 'when-reused' }, async (server) => {
    const http = new HttpClient({ baseUrl: `${server.origin}/v1`, apiKey: 'k', clock: { now: () => Date.now() }, timeoutMs: TIMEOUT_MS });
    try {
      await http.send({ operationId: 'listPets', purpose: 'list', method: 'GET', path: '/pets' });
      for (let round = 0; round < 3; round++) {
        const methods = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 'HEAD' : 'GET'));
        await Promise.all(methods.map((method) => http.send({ operationId: 'listPets', purpose: `list with ${method}`, method, path: '/pets' })));
      }
      assert.equal(
        http.exchanges.filter((e) => !e.response).map((e) => `${e.seq}: ${e.error}`),
        [],
      );
      const resent = http.exchanges.filter((e) => e.connection?.closedBeforeAnswer);
      assert.is(resent.length, server.dropped.length);
      assert.ok(resent.length > 0, 'some request went on a connection closed after a HEAD');
      for (const ex of resent) {
        const after = http.exchanges.find((e) => e.seq === ex.connection?.closedBeforeAnswer?.after?.seq);
        assert.is(after?.request.method, 'HEAD', `request ${ex.seq}`);
        assert.ok(after && after.receivedAt <= ex.receivedAt, 'the HEAD was answered before the request that met the close');
        assert.is(ex.connection?.closedBeforeAnswer?.resent, true);
      }
      assert.is(http.halted, undefined);
    } finally {
      http.close();
    }
  });
});

client.run();
