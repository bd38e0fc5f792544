// Values read off a JSON Schema, at the two levels of the description: the boundaries of what it
// allows, and one value past each constraint. Nothing here knows the pets API. A value's level
// follows from where its constraint lives (conformance/README.md, Decisions: Level of a generated
// invalid value, and of a valid one).
import type { ValidateFunction } from 'ajv';
import { createAjv, type Json, type JsonObject } from '../../lib/openapi.ts';

export type Level = 'must' | 'should';

export interface Variant {
  value: Json;
  /** What makes it special, in words: "maxLength 100 + 1". */
  label: string;
  level: Level;
  /** The schema keyword the value breaks (invalid variants only). */
  keyword?: string;
}

const ajv = createAjv();
const compiled = new WeakMap<JsonObject, ValidateFunction>();

/** A cached ajv validator of a schema object. */
export function validator(schema: JsonObject): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/** Whether a value is valid at both levels. */
export function validAtBoth(should: JsonObject, must: JsonObject, value: Json): boolean {
  return validator(should)(value) && validator(must)(value);
}

/**
 * Strings worth trying in any string field. Each is kept only where the schema allows it (or, for
 * invalid values, where it breaks nothing but the one keyword).
 */
export const NOTABLE_STRINGS: readonly string[] = [
  "O'Malley",
  '"Quoted"',
  '<b>Bold</b> & co',
  'back\\slash',
  '100% %s %d',
  'Zoë Ångström',
  'Łódź',
  '名前',
  'اسم',
  '🐈 Cat 🐕',
  'e\u0301',
  ' padded ',
  'two  spaces',
  ' ',
  '\t',
  'tab\there',
  'line\nbreak',
  'nul\u0000byte',
  'del\u007f',
  'bell\u0007',
  'next\u0085line',
];

/** The first enum value with another letter case, or the value with a suffix: not in the enum. */
function outsideEnum(values: readonly Json[]): string[] {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const first = strings[0] ?? 'value';
  const cased = first === first.toUpperCase() ? first.toLowerCase() : first[0]!.toUpperCase() + first.slice(1);
  return [cased, `${first}-unknown`].filter((v) => !strings.includes(v));
}

const INT64_MAX = 2n ** 63n - 1n;

function typeOf(schema: JsonObject): string | undefined {
  return typeof schema.type === 'string' ? schema.type : undefined;
}

function has(schema: JsonObject, keyword: string): boolean {
  return schema[keyword] !== undefined;
}

/** A string of `length` code points that the schema's pattern (if any) accepts, when one can be built. */
function filler(should: JsonObject, length: number, unit = 'x'): string | undefined {
  const candidate = unit.repeat(length);
  return validator(should)(candidate) ? candidate : undefined;
}

/** Valid values at the edges of what the full schema allows, each with the level its acceptance is demanded at. */
export function validVariants(should: JsonObject, must: JsonObject, examples: readonly Json[] = []): Variant[] {
  const out: Variant[] = [];
  const add = (value: Json | undefined, label: string) => {
    if (value === undefined || !validAtBoth(should, must, value) || out.some((v) => JSON.stringify(v.value) === JSON.stringify(value))) return;
    out.push({ value, label, level: mustAccept(must, value, examples) ? 'must' : 'should' });
  };
  for (const example of examples) add(example, "the description's example");
  if (Array.isArray(should.enum)) {
    for (const value of should.enum) add(value, `enum value ${JSON.stringify(value)}`);
    return out;
  }
  const type = typeOf(should);
  if (type === 'string') {
    const min = typeof should.minLength === 'number' ? should.minLength : 0;
    const max = typeof should.maxLength === 'number' ? should.maxLength : undefined;
    add(filler(should, Math.max(min, 1)), `minLength ${min}`);
    if (max !== undefined) {
      add(filler(should, max), `maxLength ${max}`);
      // The same length in characters of two UTF-8 bytes, and of astral characters (two UTF-16 units).
      add(filler(should, max, 'é'), `maxLength ${max} in two-byte characters`);
      add(filler(should, max, '🐈'), `maxLength ${max} in astral characters`);
    }
    for (const s of NOTABLE_STRINGS) add(s, `notable string ${JSON.stringify(s)}`);
  } else if (type === 'integer' || type === 'number') {
    const min = typeof should.minimum === 'number' ? should.minimum : undefined;
    const max = typeof should.maximum === 'number' ? should.maximum : undefined;
    if (min !== undefined) add(min, `minimum ${min}`);
    if (max !== undefined) add(max, `maximum ${max}`);
    if (min === undefined) add(0, 'zero');
  } else if (type === 'boolean') {
    add(true, 'true');
    add(false, 'false');
  }
  return out;
}

/** Whether the specification itself (the must-level schema, or the description's example) bounds this valid value. */
export function mustAccept(must: JsonObject, value: Json, examples: readonly Json[] = []): boolean {
  if (examples.some((e) => JSON.stringify(e) === JSON.stringify(value))) return true;
  if (Array.isArray(must.enum)) return true;
  const type = typeOf(must);
  return (type === 'integer' || type === 'number') && has(must, 'minimum') && has(must, 'maximum');
}

/**
 * One value past each constraint of the full schema, all else valid: the level is `must` when the
 * must-level schema holds the constraint broken. `as` says how the value travels: a JSON body keeps
 * its type; a query or path parameter is text, so type errors are words and fractions.
 */
export function invalidVariants(should: JsonObject, must: JsonObject, as: 'json' | 'text'): Variant[] {
  const out: Variant[] = [];
  const add = (value: Json, label: string, keyword: string) => {
    if (out.some((v) => JSON.stringify(v.value) === JSON.stringify(value))) return;
    // A text value that the schema would read as valid is no violation.
    const typed = as === 'text' ? asTyped(should, value) : value;
    if (validator(should)(typed)) return;
    out.push({ value, label, level: has(must, keyword) ? 'must' : 'should', keyword });
  };
  const type = typeOf(should);
  if (as === 'json') {
    const others: Array<[string, Json]> = [
      ['a string', '2'],
      ['a number with a fraction', 1.5],
      ['a boolean', true],
      ['null', null],
      ['an array', []],
      ['an object', {}],
    ];
    const sameType = (value: Json) => (typeof value === 'string' && type === 'string') || (typeof value === 'number' && type === 'number');
    for (const [what, value] of others)
      if (!sameType(value)) add(value, `${what} instead of ${type === 'integer' ? 'an integer' : `a ${type ?? 'value'}`}`, 'type');
  } else if (type === 'integer' || type === 'number') {
    add('abc', 'a word instead of a number', 'type');
    if (type === 'integer') add('1.5', 'a fraction instead of an integer', 'type');
  }
  if (Array.isArray(should.enum)) for (const value of outsideEnum(should.enum)) add(value, `${JSON.stringify(value)}, outside the enum`, 'enum');
  if (type === 'string') {
    if (typeof should.minLength === 'number' && should.minLength > 0) add('x'.repeat(should.minLength - 1), `minLength ${should.minLength} − 1`, 'minLength');
    if (typeof should.maxLength === 'number') add('x'.repeat(should.maxLength + 1), `maxLength ${should.maxLength} + 1`, 'maxLength');
    if (typeof should.pattern === 'string') {
      const regex = new RegExp(should.pattern, 'u');
      for (const s of NOTABLE_STRINGS) {
        const lengthOk =
          (typeof should.minLength !== 'number' || [...s].length >= should.minLength) &&
          (typeof should.maxLength !== 'number' || [...s].length <= should.maxLength);
        if (lengthOk && !regex.test(s)) add(s, `${JSON.stringify(s)}, outside the pattern`, 'pattern');
      }
    }
  }
  if (type === 'integer' || type === 'number') {
    if (typeof should.minimum === 'number') add(as === 'text' ? String(should.minimum - 1) : should.minimum - 1, `minimum ${should.minimum} − 1`, 'minimum');
    if (typeof should.maximum === 'number') add(as === 'text' ? String(should.maximum + 1) : should.maximum + 1, `maximum ${should.maximum} + 1`, 'maximum');
    if (should.format === 'int64') add(as === 'text' ? String(INT64_MAX + 1n) : Number(INT64_MAX + 1n), '2^63, past int64', 'format');
  }
  // An empty query value is no number and no enum value; many frameworks read it as absent, so its
  // refusal is never demanded at must level.
  if (as === 'text' && !validator(should)(asTyped(should, ''))) out.push({ value: '', label: 'an empty value', level: 'should' });
  return out;
}

/** A text parameter value as the schema would read it: digits as a number, the rest as text. */
export function asTyped(schema: JsonObject, value: Json): Json {
  if (typeof value !== 'string') return value;
  const type = typeOf(schema);
  if ((type === 'integer' || type === 'number') && /^-?\d+$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : Number(BigInt(value) > 0n ? Number.MAX_VALUE : -Number.MAX_VALUE);
  }
  if (type === 'number' && /^-?\d+\.\d+$/.test(value)) return Number(value);
  return value;
}
