// A command's options written once, as a table: the parser, the environment variables, the help
// text and the README's options table are all generated from it, so a default or a flag name can
// never differ between them. Values are converted to their type here; rules that relate options to
// each other (or ranges the program's own schema holds) stay with the program.
import { parseArgs } from 'node:util';
import { UsageError } from './errors.ts';

export type OptionType = 'string' | 'boolean' | 'integer' | 'number' | 'list';

export interface OptionSpec {
  /** Property of the options object the value lands in. */
  key: string;
  /** Long flag without dashes: 'max-wait'. */
  flag: string;
  short?: string;
  /** Environment variable read when the flag is absent; an empty value counts as unset. */
  env?: string;
  type: OptionType;
  /** Shown after the flag in help: '<seconds>'. */
  value?: string;
  /** Default, applied by parse(); shown in help and the README. */
  default?: string | number | boolean | readonly string[];
  /** How the default reads when it is not a plain value ('per instance, in memory'). */
  defaultText?: string;
  help: string;
  /** Inclusive bounds of integer and number options. */
  min?: number;
  max?: number;
  /** Accepted values of a string option. */
  choices?: readonly string[];
  /** Not echoed back in error messages (tokens, keys). */
  secret?: boolean;
  /** Help section. */
  group?: string;
}

export type ParsedOptions = Record<string, string | number | boolean | string[] | undefined>;

function describe(spec: OptionSpec, raw: string): string {
  return spec.secret ? '(hidden)' : JSON.stringify(raw);
}

function convert(spec: OptionSpec, raw: string, from: string): string | number | string[] {
  switch (spec.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`${from} must be an integer, not ${describe(spec, raw)}`);
      return checkRange(spec, Number(raw), from);
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${from} must be a number, not ${describe(spec, raw)}`);
      return checkRange(spec, n, from);
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      if (spec.choices && !spec.choices.includes(raw)) throw new UsageError(`${from} must be one of ${spec.choices.join(', ')}, not ${describe(spec, raw)}`);
      return raw;
  }
}

function checkRange(spec: OptionSpec, n: number, from: string): number {
  if (spec.min !== undefined && n < spec.min) throw new UsageError(`${from} must be at least ${spec.min}, not ${n}`);
  if (spec.max !== undefined && n > spec.max) throw new UsageError(`${from} must be at most ${spec.max}, not ${n}`);
  return n;
}

function booleanFromEnv(spec: OptionSpec, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`${spec.env} must be 1 or 0 (true or false), not ${JSON.stringify(raw)}`);
}

/**
 * Flags first, then the environment, then the default. Unknown flags, a missing value and a value
 * of the wrong type are UsageErrors naming the flag (or the variable) as the user wrote it.
 */
/**
 * Parses argv (then the environment, then the defaults) against the table. With `positionals`, the
 * arguments that are not options land in `_` (files, for instance); otherwise one is a usage error.
 */
export function parseOptions(
  specs: readonly OptionSpec[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  mode: { positionals?: boolean } = {},
): ParsedOptions {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const spec of specs) {
    config[spec.flag] = {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.type === 'list' ? { multiple: true } : {}),
    };
  }
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: config, strict: true, allowPositionals: mode.positionals === true }));
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''), { cause: error });
  }
  const out: ParsedOptions = mode.positionals ? { _: positionals } : {};
  for (const spec of specs) {
    const given = values[spec.flag];
    if (given !== undefined) {
      if (spec.type === 'boolean') out[spec.key] = given as boolean;
      else if (spec.type === 'list') out[spec.key] = (given as string[]).flatMap((v) => convert(spec, v, `--${spec.flag}`) as string[]);
      else out[spec.key] = convert(spec, given as string, `--${spec.flag}`);
      continue;
    }
    const fromEnv = spec.env ? env[spec.env] : undefined;
    if (fromEnv !== undefined && fromEnv.trim() !== '') {
      out[spec.key] = spec.type === 'boolean' ? booleanFromEnv(spec, fromEnv) : convert(spec, fromEnv, spec.env!);
      continue;
    }
    if (spec.default !== undefined) out[spec.key] = Array.isArray(spec.default) ? [...spec.default] : (spec.default as string | number | boolean);
  }
  return out;
}

function flagText(spec: OptionSpec): string {
  const long = `--${spec.flag}${spec.type === 'boolean' ? '' : ` ${spec.value ?? '<value>'}`}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

function defaultText(spec: OptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined || spec.default === false) return undefined;
  return Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
}

/** Help text: the usage lines, then each group's options with their environment variable and default. */
export function helpText(usage: string, specs: readonly OptionSpec[], epilogue = ''): string {
  const width = Math.min(34, Math.max(...specs.map((s) => flagText(s).length)) + 2);
  const groups = new Map<string, OptionSpec[]>();
  for (const spec of specs) groups.set(spec.group ?? 'Options', [...(groups.get(spec.group ?? 'Options') ?? []), spec]);
  const lines = [usage.trimEnd(), ''];
  for (const [group, members] of groups) {
    lines.push(group);
    for (const spec of members) {
      const extra = [spec.env ? `env ${spec.env}` : '', defaultText(spec) !== undefined ? `default ${defaultText(spec)}` : ''].filter(Boolean).join('; ');
      const text = extra ? `${spec.help} (${extra})` : spec.help;
      const flag = flagText(spec);
      const wrapped = wrap(text, 96 - width - 2);
      lines.push(`  ${flag.padEnd(width)}${flag.length >= width ? `\n  ${' '.repeat(width)}` : ''}${wrapped[0]}`);
      for (const rest of wrapped.slice(1)) lines.push(`  ${' '.repeat(width)}${rest}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}${epilogue ? `${epilogue.trimEnd()}\n` : ''}`;
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(line);
  return out;
}

/** The README's options table for the same specs: | flag | environment | default | meaning |. */
export function markdownTable(specs: readonly OptionSpec[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = specs.map((spec) => {
    const def = defaultText(spec);
    // A value is code; a description of the default ('per instance, in memory') is prose.
    const shown = def === undefined ? '' : spec.defaultText !== undefined ? cell(def) : `\`${cell(def)}\``;
    return `| \`${cell(flagText(spec))}\` | ${spec.env ? `\`${spec.env}\`` : ''} | ${shown} | ${cell(spec.help)} |`;
  });
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` in a Markdown document. */
export function replaceGenerated(document: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the document has no ${start} ... ${end} block`);
  return `${document.slice(0, from + start.length)}\n${content.trim()}\n${document.slice(to)}`;
}
