import { type Command, Option } from 'commander';
import { UsageError } from './context.js';

const requiredOptions = new WeakSet<Option>();

/**
 * An option the command cannot run without. Checked by `checkRequiredOptions` after commander has
 * rejected unknown options, so a mistyped flag is reported as such, not as a missing one.
 */
export function mandatory(flags: string, description: string): Option {
  const option = new Option(flags, `${description} (required)`);
  requiredOptions.add(option);
  return option;
}

/** A preAction hook: fails with a usage error when a mandatory option of the command is missing. */
export function checkRequiredOptions(_hooked: Command, command: Command): void {
  for (const option of command.options) {
    if (requiredOptions.has(option) && command.getOptionValue(option.attributeName()) === undefined) {
      throw new UsageError(`required option '${option.flags}' not specified`);
    }
  }
}
