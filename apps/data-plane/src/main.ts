import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@baseplate/config';
import { migrateControl } from '@baseplate/database';
import { runApp } from '@baseplate/logging';
import { createDataPlaneApp } from './bootstrap';

runApp('data-plane', async () => {
  const config = loadConfig();
  await migrateControl(config);
  const app = await createDataPlaneApp(config);
  app.get(Logger).log(`Data plane listening on ${await app.getUrl()}`);
});
