// A command's options written once, as a table: parser, environment variables, help text, README table
// and the options' TypeScript type derive from it, so a default or a flag name cannot differ. Reading and
// checking are two steps, so that a program taking options from code too (runConformance) checks both
// with one check; rules that relate options to each other stay with the program.
import { parseArgs } from 'node:util';
import { UsageError } from './errors.ts';
import type { OptionSpec } from './option-spec.ts';

// The help text and the README's table are written from the same table (cli-help.ts).
export { helpText, markdownTable, replaceGenerated } from './cli-help.ts';

export type { OptionSpec, OptionType } from './option-spec.ts';

/** The value type an option's spec yields: its `convert`'s result, else its type's (a union of its choices). */
export type OptionValue<S> = S extends { convert: (value: never, from: string) => infer R }
  ? R
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'integer' | 'number' }
      ? number
      : S extends { type: 'list' }
        ? readonly string[]
        : S extends { choices: readonly (infer C)[] }
          ? C
          : string;

type Flatten<T> = { [K in keyof T]: T[K] };
type KeyOf<S> = S extends { key: infer K extends string } ? K : never;
type Always = { required: true } | { default: unknown };

/** What code passes, for the union S of a table's specs: required options must be there, the others may be. */
export type OptionsInput<S extends OptionSpec> = Flatten<
  { [T in S as T extends { required: true } ? KeyOf<T> : never]: OptionValue<T> } & {
    [T in S as T extends { required: true } ? never : KeyOf<T>]?: OptionValue<T>;
  }
>;

/** What checkOptions returns for the union S of a table's specs: options with a default, or required, are there. */
export type OptionsChecked<S extends OptionSpec> = Flatten<
  { [T in S as T extends Always ? KeyOf<T> : never]: OptionValue<T> } & {
    [T in S as T extends Always ? never : KeyOf<T>]?: OptionValue<T>;
  }
>;

/** The defaults of the union S of a table's specs. */
export type OptionsDefaults<S extends OptionSpec> = Flatten<{ [T in S as T extends { default: unknown } ? KeyOf<T> : never]: OptionValue<T> }>;

export type ParsedOptions = Record<string, unknown>;

function describe(spec: OptionSpec, raw: unknown): string {
  return spec.secret ? '(hidden)' : JSON.stringify(raw);
}

/** Text to the option's type; only the syntax of numbers is checked here (ranges are the check's). */
function fromText(spec: OptionSpec, raw: string, from: string): string | number {
  if (spec.type === 'integer') {
    if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`${from} must be an integer, not ${describe(spec, raw)}`);
    return Number(raw);
  }
  if (spec.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${from} must be a number, not ${describe(spec, raw)}`);
    return n;
  }
  return raw;
}

function listFromText(spec: OptionSpec, raws: readonly string[]): string[] {
  if (spec.whole) return [...raws];
  return raws.flatMap((raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function booleanFromEnv(spec: OptionSpec, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`${spec.env} must be 1 or 0 (true or false), not ${JSON.stringify(raw)}`);
}

/**
 * `--flag --x` as `--flag=--x` for the options whose value may begin with dashes, and `--n -1` as
 * `--n=-1` for numbers (so that a negative one is refused by its range, not as a missing value).
 */
function joinDashedValues(specs: readonly OptionSpec[], argv: readonly string[]): string[] {
  const dashed = new Set(specs.filter((s) => s.dashes).map((s) => `--${s.flag}`));
  const numeric = new Set(specs.filter((s) => s.type === 'integer' || s.type === 'number').map((s) => `--${s.flag}`));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (next !== undefined && (dashed.has(arg) || (numeric.has(arg) && /^-\d/.test(next)))) out.push(`${arg}=${argv[++i]}`);
    else out.push(arg);
  }
  return out;
}

function parseArgv(specs: readonly OptionSpec[], argv: readonly string[], positionals: boolean) {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const spec of specs) {
    config[spec.flag] = {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.type === 'list' ? { multiple: true } : {}),
    };
  }
  try {
    return parseArgs({ args: joinDashedValues(specs, argv), options: config, strict: true, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''), { cause: error });
  }
}

/** One option's value as written (flag first, then variable), in its type; undefined when neither gives one. */
function readOne(spec: OptionSpec, given: unknown, env: NodeJS.ProcessEnv): { value: unknown; from: string } | undefined {
  const fromEnv = spec.env ? env[spec.env] : undefined;
  let value: unknown;
  if (given !== undefined) {
    const from = `--${spec.flag}`;
    if (spec.type === 'boolean') value = given as boolean;
    else if (spec.type === 'list') value = listFromText(spec, given as string[]);
    else value = fromText(spec, given as string, from);
    return { value: spec.negated ? !value : value, from };
  }
  if (fromEnv === undefined || fromEnv.trim() === '') return undefined;
  const from = spec.env!;
  if (spec.type === 'boolean') value = booleanFromEnv(spec, fromEnv);
  else if (spec.type === 'list') value = listFromText(spec, [fromEnv]);
  else value = fromText(spec, fromEnv, from);
  // A variable's value is refused under the variable's name, which is what the user wrote.
  const problem = spec.convert ? undefined : typeProblem(spec, value, from);
  if (problem !== undefined) throw new UsageError(problem);
  return { value: spec.negated ? !value : value, from };
}

/** Two options given together that exclude each other (a value of false counts as not given). */
function exclusionProblem(specs: readonly OptionSpec[], values: ParsedOptions): string | undefined {
  const given = (key: string) => values[key] !== undefined && values[key] !== false;
  for (const spec of specs) {
    for (const [key, reason] of Object.entries(spec.excludes ?? {})) {
      const other = specs.find((s) => s.key === key);
      if (other && given(spec.key) && given(key)) return `--${spec.flag} and --${other.flag} exclude each other: ${reason}`;
    }
  }
  return undefined;
}

/**
 * Argv, then the environment, then each option's `convert`. Options that exclude each other are
 * refused before any conversion, which may read a file. A UsageError names the flag or the variable
 * as the user wrote it.
 */
export function readOptions(
  specs: readonly OptionSpec[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  mode: { positionals?: boolean } = {},
): ParsedOptions {
  const { values, positionals } = parseArgv(specs, argv, mode.positionals === true);
  const read = new Map<OptionSpec, { value: unknown; from: string }>();
  for (const spec of specs) {
    const one = readOne(spec, values[spec.flag], env);
    if (one) read.set(spec, one);
  }
  const written = Object.fromEntries([...read].map(([spec, { value }]) => [spec.key, value]));
  const excluded = exclusionProblem(specs, written);
  if (excluded !== undefined) throw new UsageError(excluded);
  const out: ParsedOptions = mode.positionals ? { _: positionals } : {};
  for (const [spec, { value, from }] of read) out[spec.key] = spec.convert ? spec.convert(value as never, from) : value;
  return out;
}

function typeProblem(spec: OptionSpec, value: unknown, name = `--${spec.flag}`): string | undefined {
  switch (spec.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} must be true or false`;
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value) || (spec.type === 'integer' && !Number.isInteger(value)))
        return `${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'}, not ${describe(spec, value)}`;
      if (spec.min !== undefined && value < spec.min) return `${name} must be at least ${spec.min}, not ${value}`;
      if (spec.max !== undefined && value > spec.max) return `${name} must be at most ${spec.max}, not ${value}`;
      return undefined;
    }
    case 'list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : `${name} must be a list of strings`;
    default:
      if (typeof value !== 'string') return `${name} must be a string`;
      if (spec.choices && !spec.choices.includes(value)) return `${name} must be one of ${spec.choices.join(', ')}, not ${describe(spec, value)}`;
      return undefined;
  }
}

/**
 * The one check for values from a command line or from code: type, range, choice, the option's own
 * rule, required options, defaults. Options outside the table pass through untouched (the caller's
 * hooks).
 */
export function checkOptions(specs: readonly OptionSpec[], values: ParsedOptions): ParsedOptions {
  const excluded = exclusionProblem(specs, values);
  if (excluded !== undefined) throw new UsageError(excluded);
  const out: ParsedOptions = { ...values };
  for (const spec of specs) {
    const value = values[spec.key];
    if (value === undefined) {
      if (spec.required) throw new UsageError(`--${spec.flag} is required${spec.env ? ` (or set ${spec.env})` : ''}`);
      const def = spec.default;
      if (def !== undefined) out[spec.key] = Array.isArray(def) ? [...def] : typeof def === 'object' ? { ...def } : def;
      continue;
    }
    const problem = (spec.convert ? undefined : typeProblem(spec, value)) ?? spec.check?.(value as never);
    if (problem !== undefined) throw new UsageError(problem);
  }
  return out;
}

/** readOptions, then checkOptions: a command whose options come only from its command line. */
export function parseOptions(
  specs: readonly OptionSpec[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  mode: { positionals?: boolean } = {},
): ParsedOptions {
  return checkOptions(specs, readOptions(specs, argv, env, mode));
}
