import 'reflect-metadata';
import { loadConfig } from '@baseplate/config';
import { migrateControl } from '@baseplate/database';
import { runApp } from '@baseplate/logging';
import { startWorker } from './bootstrap';

runApp('worker', async () => {
  const config = loadConfig();
  await migrateControl(config);
  const starting = startWorker(config);
  // Registered before the worker takes its first job, so no job can start unguarded.
  const stop = (): void => {
    starting
      .then((worker) => worker.close())
      .then(
        () => process.exit(0),
        (e: unknown) => {
          console.error(`worker failed to stop: ${e instanceof Error ? e.message : String(e)}`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await starting;
});
