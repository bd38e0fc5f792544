// When the target counts as stopped: a few requests in a row without an answer, once it has answered
// something; any answer starts the count again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Silence, UNANSWERED_IN_A_ROW } from './silence.ts';

const test = suite('Silence');

/** A: a request answered; U: one that got no answer. */
const CASES: Array<[sequence: string, stopsAt: number | undefined, why: string]> = [
  ['AUUU', 3, 'three in a row after an answer'],
  ['UUUUUU', undefined, 'never answered: the preflight reports an unreachable target'],
  ['AUUAUU', undefined, 'an answer in between starts the count again'],
  ['AUUAUUU', 6, 'three in a row after the last answer'],
  ['AAAAU', undefined, 'one lost answer is no stop'],
];

for (const [sequence, stopsAt, why] of CASES) {
  test(`${sequence}: ${why}`, () => {
    const silence = new Silence();
    let stoppedAt: number | undefined;
    [...sequence].forEach((step, i) => {
      if (step === 'A') silence.answered(`GET /pets (200, request ${i + 1})`);
      else if (silence.unanswered(`GET /pets/${i + 1} (request ${i + 1})`, 'ETIMEDOUT') !== undefined) stoppedAt ??= i;
    });
    assert.is(stoppedAt, stopsAt);
  });
}

test('the message names how many went unanswered, why, the last request answered and the first that was not', () => {
  const silence = new Silence();
  silence.answered('GET http://h/v1/pets (200, request 7)');
  const messages = ['ETIMEDOUT', 'ECONNRESET', 'ETIMEDOUT'].map((why, i) => silence.unanswered(`GET http://h/v1/pets/${i} (request ${8 + i})`, why));
  assert.equal(messages.slice(0, 2), [undefined, undefined]);
  assert.is(
    messages[2],
    `the target stopped answering: ${UNANSWERED_IN_A_ROW} requests in a row got no answer (ETIMEDOUT, ECONNRESET); the last answered: GET http://h/v1/pets (200, request 7); the first unanswered: GET http://h/v1/pets/0 (request 8). The run ended there`,
  );
  assert.is(silence.stopped, messages[2]);
  silence.answered('GET http://h/v1/pets (200, request 11)');
  assert.is(silence.stopped, messages[2], 'a stop stays a stop');
});

test.run();
