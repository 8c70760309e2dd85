import { ConfigError } from '@baseplate/config';

/**
 * Entrypoint guard for every app: a bad setting prints its one line and exits 1;
 * any other boot failure prints its message (never the config, which holds secrets).
 */
export function runApp(name: string, main: () => Promise<unknown>): void {
  main().catch((e: unknown) => {
    if (e instanceof ConfigError) {
      console.error(e.message);
    } else {
      console.error(
        `${name} failed to start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      );
    }
    process.exit(1);
  });
}
