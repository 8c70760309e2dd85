import 'reflect-metadata';
import { loadConfig } from '@baseplate/config';
import { migrateControl } from '@baseplate/database';
import { runApp } from '@baseplate/logging';
import { createControlPlaneApp } from './bootstrap';

runApp('control-plane', async () => {
  const config = loadConfig();
  await migrateControl(config);
  await createControlPlaneApp(config);
});
