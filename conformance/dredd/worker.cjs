// Runs Dredd 14 through its Node API in a process of its own (Dredd's logger and hook loader are
// process-global), and writes one JSON result per transaction to the file named by argv[3].
'use strict';
const fs = require('node:fs');
const { EventEmitter } = require('node:events');
const Dredd = require('dredd');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

// Dredd reads every body whole: past --max-body the answer is destroyed with an error the kit reports
// as not judged. request 2.x looks up http(s).request on each request, so the bound holds for all.
const TOO_LARGE = 'body too large to judge';
// A target that stopped answering must not keep Dredd waiting: each request gets --timeout, and a
// few in a row without any answer end the run, as they end the kit's (conformance/silence.ts).
const silence = { lastAnswered: config.lastAnswered, unanswered: [] };
for (const module of [require('node:http'), require('node:https')]) {
  const original = module.request;
  module.request = function boundedRequest(...args) {
    const outgoing = original.apply(this, args);
    const what = `${outgoing.method} ${outgoing.protocol}//${outgoing.getHeader('host') || outgoing.host}${outgoing.path}`;
    let answered = false;
    if (config.requestTimeoutMs) {
      outgoing.setTimeout(config.requestTimeoutMs, () =>
        outgoing.destroy(Object.assign(new Error(`no answer within --timeout ${config.requestTimeoutMs} ms`), { code: 'ETIMEDOUT' })),
      );
    }
    outgoing.on('error', (error) => {
      if (answered) return;
      silence.unanswered.push({ what, why: error.code === 'ETIMEDOUT' ? error.message : error.code || error.message });
      if (silence.unanswered.length >= config.unansweredInARow) setImmediate(stopped);
    });
    outgoing.on('response', (res) => {
      answered = true;
      silence.lastAnswered = `${what} (${res.statusCode}, Dredd)`;
      silence.unanswered = [];
      const limit = config.maxBodyBytes;
      const declared = Number(res.headers['content-length']);
      const stop = (read) =>
        res.destroy(
          new Error(
            `${TOO_LARGE}: ${Number.isFinite(declared) ? `Content-Length ${declared}` : `more than ${read} bytes read`}, past --max-body ${limit}; not read further`,
          ),
        );
      if (Number.isFinite(declared) && declared > limit) return stop(0);
      let read = 0;
      res.on('data', (chunk) => {
        read += chunk.length;
        if (read > limit) stop(read);
      });
    });
    return outgoing;
  };
}
const out = process.argv[3];
const emitter = new EventEmitter();
const names = new WeakMap();
const results = [];

/** The words of conformance/silence.ts's stoppedText: the kit reports them as its own stop. */
function stopped() {
  const whys = [...new Set(silence.unanswered.map((u) => u.why))].join(', ');
  const message = `the target stopped answering: ${silence.unanswered.length} requests in a row got no answer (${whys}); the last answered: ${silence.lastAnswered || 'none'}; the first unanswered: ${silence.unanswered[0].what}. The run ended there`;
  fs.writeFileSync(out, JSON.stringify({ error: message, stopped: message, results }));
  process.exit(0);
}

function record(status, test, error) {
  const actual = test && test.actual;
  results.push({
    name: (test && names.get(test)) || (test && test.title) || '(unknown transaction)',
    id: test && test.title,
    status,
    message: error ? String(error.message || error) : String((test && test.message) || '').trim(),
    request: test && test.request ? { method: test.request.method, uri: test.request.uri, headers: test.request.headers, body: test.request.body } : undefined,
    response: actual ? { statusCode: actual.statusCode, headers: actual.headers, body: actual.body } : undefined,
  });
}

emitter.on('test start', (test) => names.set(test, test.message));
emitter.on('test pass', (test) => record('pass', test));
emitter.on('test fail', (test) => record('fail', test));
emitter.on('test skip', (test) => record('skip', test));
emitter.on('test error', (error, test) => record('error', test, error));

const dredd = new Dredd({
  endpoint: config.endpoint,
  path: [config.description],
  // Dredd resolves the user's globs from the working directory and loads every file in the order of its name.
  hookfiles: [config.hookfile, ...config.userHookfiles],
  custom: { conformance: config.custom },
  emitter,
  loglevel: 'error',
  color: false,
  reporter: [],
  output: [],
});

dredd.run((error, stats) => {
  fs.writeFileSync(out, JSON.stringify({ error: error ? String(error.message || error) : undefined, stats, results }));
  process.exit(0);
});
