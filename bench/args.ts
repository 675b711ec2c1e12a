/** Command-line flags of the bench scripts: `--name value`, with a default when absent. */
export const args = process.argv.slice(2);

/** The value after `--name`, or `fallback` when the flag is absent or has no value. */
export function flag(name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}
