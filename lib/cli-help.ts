// What an options table (cli-options.ts) reads as: --help, and the options table of a README with
// the block of a Markdown document it goes in. Both show each option's flag, variable and default
// the same way, so that they cannot drift from the parser.
import type { OptionSpec } from './option-spec.ts';

function flagText(spec: OptionSpec): string {
  const long = `--${spec.flag}${spec.type === 'boolean' ? '' : ` ${spec.value ?? '<value>'}`}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

function defaultText(spec: OptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  // A negated flag's default (true) is that the flag is absent; an empty list or record reads as nothing.
  if (spec.default === undefined || spec.default === false || spec.negated) return undefined;
  if (Array.isArray(spec.default)) return spec.default.length > 0 ? spec.default.join(',') : undefined;
  return typeof spec.default === 'object' ? undefined : String(spec.default);
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

/**
 * The README's options table for the same specs: | flag | environment | default | meaning | (no
 * environment column when no option has a variable). With `codeKey`, a column names the property
 * code passes for each option (none for the command line's own).
 */
export function markdownTable(specs: readonly OptionSpec[], codeKey?: (spec: OptionSpec) => string | undefined): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const code = (text: string | undefined) => (text ? `\`${cell(text)}\`` : '');
  const columns: Array<[string, (spec: OptionSpec) => string]> = [
    ['flag', (spec) => code(flagText(spec))],
    ...(codeKey ? [['in code', (spec: OptionSpec) => code(codeKey(spec))] as [string, (spec: OptionSpec) => string]] : []),
    ...(specs.some((s) => s.env) ? [['environment', (spec: OptionSpec) => code(spec.env)] as [string, (spec: OptionSpec) => string]] : []),
    // A value is code; a description of the default ('per instance, in memory') is prose.
    ['default', (spec) => (spec.defaultText !== undefined ? cell(spec.defaultText) : code(defaultText(spec)))],
    ['meaning', (spec) => cell(spec.help)],
  ];
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    row(columns.map(([name]) => name)),
    `|${columns.map(() => '---|').join('')}`,
    ...specs.map((spec) => row(columns.map(([, value]) => value(spec)))),
  ].join('\n');
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
