// One option of a command, as the options table of cli-options.ts lists it.
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
  /** Default, applied by the check; shown in help and the README when it is a plain value. */
  default?: string | number | boolean | readonly string[] | Readonly<Record<string, string>>;
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
  /** Options that cannot be given with this one, by key, each with the reason (the message's second half). */
  excludes?: Readonly<Record<string, string>>;
  /** Missing (no flag, no variable, no value from code) is a usage error. */
  required?: boolean;
  /** A boolean whose flag turns it off: `--no-dredd` sets `dredd` to false (default true). */
  negated?: boolean;
  /**
   * The value may itself begin with dashes (a list of another program's flags): the argument after
   * the flag is taken whole, as `--flag=--x` would be, which node's parser refuses otherwise.
   */
  dashes?: boolean;
  /** A list whose values are taken whole, not split on commas (a header value may hold one). */
  whole?: boolean;
  /**
   * What the command line's value becomes beyond its type (a file's contents, a record of
   * "Name: value" items); `from` names the flag or variable. Not applied to values from code.
   */
  convert?: (value: never, from: string) => unknown;
  /** The option's own rule, for a value from the command line or from code: a message, or undefined when valid. */
  check?: (value: never) => string | undefined;
}
