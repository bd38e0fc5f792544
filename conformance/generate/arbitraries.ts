// fast-check arbitraries read off the description's schemas: valid values at both levels (the full
// schema, decisions included, so the reference server accepts every one), and whole request bodies
// with the optional properties sometimes left out and, where the schema allows them, extra ones.
import fc from 'fast-check';
import type { Json, JsonObject } from '../../lib/openapi.ts';
import { mustAccept, NOTABLE_STRINGS, validAtBoth } from './schema.ts';

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** Any value valid against both schemas of one property (or parameter). */
export function valueArbitrary(should: JsonObject, must: JsonObject): fc.Arbitrary<Json> {
  const valid = (v: Json) => validAtBoth(should, must, v);
  if (Array.isArray(should.enum)) return fc.constantFrom(...should.enum.filter(valid));
  if (should.type === 'string') {
    const minLength = typeof should.minLength === 'number' ? should.minLength : 0;
    const maxLength = typeof should.maxLength === 'number' ? should.maxLength : 200;
    const notable = NOTABLE_STRINGS.filter(valid);
    return fc
      .oneof(
        fc.string({ unit: 'grapheme-ascii', minLength, maxLength }),
        fc.string({ unit: 'grapheme', minLength, maxLength }),
        ...(notable.length > 0 ? [fc.constantFrom(...notable)] : []),
      )
      .filter(valid);
  }
  if (should.type === 'integer') {
    const min = typeof should.minimum === 'number' ? Math.max(should.minimum, Number.MIN_SAFE_INTEGER) : Number.MIN_SAFE_INTEGER;
    const max = typeof should.maximum === 'number' ? Math.min(should.maximum, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
    return fc.integer({ min, max });
  }
  if (should.type === 'number') return fc.double({ noNaN: true, noDefaultInfinity: true }).filter(valid);
  if (should.type === 'boolean') return fc.boolean();
  return fc.constant(null).filter(valid);
}

export interface GeneratedBody {
  body: Record<string, Json>;
  /** `must` when the specification itself bounds every value sent (see schema.ts); else `should`. */
  level: 'must' | 'should';
  extra: string[];
}

/** Whole object bodies valid at both levels; the level their acceptance is demanded at comes with them. */
export function bodyArbitrary(
  should: JsonObject,
  must: JsonObject,
  examples: readonly Json[],
  options: { extra?: boolean; fixed?: Record<string, Json> } = {},
): fc.Arbitrary<GeneratedBody> {
  const properties = asObject(should.properties);
  const mustProperties = asObject(must.properties);
  const required = new Set(Array.isArray(should.required) ? should.required.map(String) : []);
  const fixed = options.fixed ?? {};
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, schema] of Object.entries(properties)) {
    model[name] = name in fixed ? fc.constant(fixed[name]!) : valueArbitrary(asObject(schema), asObject(mustProperties[name]));
  }
  const record = fc.record(model, { requiredKeys: [...required, ...Object.keys(fixed)] });
  const allowsExtra = should.additionalProperties !== false && options.extra !== false;
  const extras = allowsExtra
    ? fc.option(
        fc.dictionary(
          fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }).filter((k) => !(k in properties) && k !== '__proto__'),
          fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()),
          { maxKeys: 2 },
        ),
        { nil: undefined },
      )
    : fc.constant(undefined);
  return fc.tuple(record, extras).map(([values, extra]) => {
    const body = { ...(values as Record<string, Json>), ...(extra ?? {}) };
    const extraNames = Object.keys(extra ?? {});
    const bounded = Object.entries(values as Record<string, Json>).every(([name, value]) =>
      mustAccept(
        asObject(mustProperties[name]),
        value,
        examples.map((e) => asObject(e)[name]).filter((v): v is Json => v !== undefined),
      ),
    );
    return { body, level: bounded && extraNames.length === 0 ? 'must' : 'should', extra: extraNames };
  });
}

export interface InvalidText {
  value: string;
  level: 'must' | 'should';
  /** The schema keyword the value breaks. */
  keyword: string;
}

/**
 * Text values a query or path parameter's schema refuses, of every kind it can be broken in: words
 * for numbers, fractions for integers, numbers past either bound, strings outside an enum. The level
 * follows the keyword broken, as in schema.ts.
 */
export function invalidTextArbitrary(should: JsonObject, must: JsonObject): fc.Arbitrary<InvalidText> | undefined {
  const level = (keyword: string): 'must' | 'should' => (must[keyword] !== undefined ? 'must' : 'should');
  const options: Array<fc.Arbitrary<InvalidText>> = [];
  const word = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).filter((s) => !/\d/.test(s) && s.trim() !== '');
  if (Array.isArray(should.enum)) {
    const values = should.enum.map(String);
    options.push(word.filter((s) => !values.includes(s)).map((value) => ({ value, level: level('enum'), keyword: 'enum' })));
  } else if (should.type === 'integer' || should.type === 'number') {
    options.push(word.map((value) => ({ value, level: level('type'), keyword: 'type' })));
    if (should.type === 'integer')
      options.push(
        fc
          .tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 1, max: 9 }))
          .map(([i, f]) => ({ value: `${i}.${f}`, level: level('type'), keyword: 'type' })),
      );
    if (typeof should.minimum === 'number')
      options.push(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: should.minimum - 1 }).map((n) => ({ value: String(n), level: level('minimum'), keyword: 'minimum' })),
      );
    if (typeof should.maximum === 'number')
      options.push(
        fc.integer({ min: should.maximum + 1, max: Number.MAX_SAFE_INTEGER }).map((n) => ({ value: String(n), level: level('maximum'), keyword: 'maximum' })),
      );
  }
  return options.length > 0 ? fc.oneof(...options) : undefined;
}
