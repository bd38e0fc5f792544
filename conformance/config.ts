// A config file (JSON or YAML, options by their flag names), so that CI needs no long command line.
// `${NAME}` in a value is read from the environment, so secrets stay out of the file. Its options
// go before the real command-line arguments, which therefore win.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { OptionSpec } from '../lib/cli-options.ts';
import { UsageError } from '../lib/errors.ts';

type Value = string | number | boolean | string[] | Record<string, string>;

function interpolate(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') throw new UsageError(`${where} reads \${${name}}, which is not set in the environment`);
    return value;
  });
}

/** Arguments equivalent to the file's options. */
export function configArguments(document: unknown, specs: readonly OptionSpec[], env: NodeJS.ProcessEnv, file: string): string[] {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw new UsageError(`${file} must hold an object of options by flag name`);
  const args: string[] = [];
  for (const [name, raw] of Object.entries(document as Record<string, Value>)) {
    const spec = specs.find((s) => s.flag === name || s.key === name);
    if (!spec || spec.flag === 'config' || spec.flag === 'help')
      throw new UsageError(`${file}: unknown option "${name}" (options go by their flag names, as --help lists them)`);
    if (spec.env && env[spec.env] !== undefined && env[spec.env] !== '') continue;
    const where = `${file}: ${name}`;
    if (spec.type === 'boolean') {
      if (typeof raw !== 'boolean') throw new UsageError(`${where} must be true or false`);
      // `dredd: false` by key means what `no-dredd: true` by flag means.
      const flagGiven = spec.negated && name === spec.key ? !raw : raw;
      if (flagGiven) args.push(`--${spec.flag}`);
      continue;
    }
    const values =
      spec.type === 'list'
        ? Array.isArray(raw)
          ? raw
          : raw !== null && typeof raw === 'object'
            ? Object.entries(raw).map(([k, v]) => `${k}: ${v}`)
            : [raw]
        : [raw];
    for (const value of values) {
      if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${where} must be a string or a number`);
      args.push(`--${spec.flag}`, interpolate(String(value), env, where));
    }
  }
  return args;
}

export async function readConfig(path: string, specs: readonly OptionSpec[], env: NodeJS.ProcessEnv): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--config ${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new UsageError(`--config ${path} is neither JSON nor YAML: ${(error as Error).message}`, { cause: error });
  }
  return configArguments(document, specs, env, path);
}
