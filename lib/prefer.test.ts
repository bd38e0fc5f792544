// The Prefer parser the reference server and the proxy share: what a value asks for, what it
// leaves alone, and the 400 message of a value out of range.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePrefer, requestedFault, type Fault } from './prefer.ts';

const MAX = 1000;

const ASKED: Array<[string, string | undefined, Fault]> = [
  ['no header', undefined, {}],
  ['an empty header', '', {}],
  ['code=429', 'code=429', { code: 429 }],
  ['code=500', 'code=500', { code: 500 }],
  ['code=503 and a delay', 'code=503, delay=20', { code: 503, delayMs: 20 }],
  ['names in any case, spaces around', ' Code = 503 ,DELAY=0', { code: 503, delayMs: 0 }],
  ['a quoted value', 'code="503"', { code: 503 }],
  ['the longest delay allowed', `delay=${MAX}`, { delayMs: MAX }],
  ['a preference that is not a fault', 'return=minimal', {}],
  ['a fault beside other preferences', 'return=minimal, code=500, wait=10', { code: 500 }],
  // Prism's convention: any status, checked against the operation's documented ones by the server.
  ['any status, as Prism reads it', 'code=404', { code: 404 }],
  ['a named example', 'example=keyBanned', { example: 'keyBanned' }],
  ['a status and a named example', 'code=429, example="day"', { code: 429, example: 'day' }],
];
for (const [what, header, fault] of ASKED) {
  test(`Prefer: ${what}`, () => assert.equal(parsePrefer(header, MAX), fault));
}

const REFUSED: Array<[string, string, RegExp]> = [
  ['a status out of range', 'code=600', /^Prefer: code=600 is not an HTTP status \(100 to 599\)\.$/],
  ['an empty code', 'code=', /^Prefer: code= is not an HTTP status/],
  ['a code that is not a number', 'code=4o4', /code=4o4 is not an HTTP status/],
  ['an empty example', 'example=', /^Prefer: example= is not an example's name/],
  ['an example that is not a token', 'example=a b', /example=a b is not an example's name/],
  ['a delay over the longest', `delay=${MAX + 1}`, /^Prefer: delay=1001 must be whole milliseconds from 0 to 1000\.$/],
  ['a negative delay', 'delay=-1', /must be whole milliseconds/],
  ['a fractional delay', 'delay=1.5', /must be whole milliseconds/],
  ['a bad code after a good one', 'code=503, code=2011', /code=2011 is not an HTTP status/],
];
for (const [what, header, message] of REFUSED) {
  test(`Prefer: ${what} is a 400's message`, () => {
    const parsed = parsePrefer(header, MAX);
    assert.type(parsed, 'string');
    assert.match(parsed as string, message);
  });
}

const HEADERS: Array<[string, Record<string, unknown>, Fault]> = [
  ["Node's lower-case names", { prefer: 'code=503' }, { code: 503 }],
  ['any casing of the name', { PREFER: 'delay=5' }, { delayMs: 5 }],
  ['the first of a repeated field', { Prefer: ['code=500', 'code=503'] }, { code: 500 }],
  ['no Prefer at all', { 'content-type': 'application/json' }, {}],
];
for (const [what, headers, fault] of HEADERS) {
  test(`requestedFault reads ${what}`, () => assert.equal(requestedFault(headers, MAX), fault));
}

test.run();
