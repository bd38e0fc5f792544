// Dependencies only some commands need (Dredd for `conform`, Prism for `mock`) are optional, so that
// installing the kit to serve or check stays lean. Each is found when a command needs it, and its
// absence is a message that says how to install it or do without it.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { KitError } from './errors.ts';

export class MissingDependencyError extends KitError {
  constructor(pkg: string, purpose: string, alternative: string) {
    super(
      'missing_dependency',
      `${purpose} needs ${pkg}, an optional dependency that is not installed: run "npm install ${pkg}"${alternative ? `, or ${alternative}` : ''}.`,
    );
  }
}

/** The folder of an optional package, or a MissingDependencyError saying how to get it. */
export function optionalPackage(pkg: string, purpose: string, alternative = ''): string {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    throw new MissingDependencyError(pkg, purpose, alternative);
  }
}
