// The one place these suites reach into the app they test.
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@baseplate/config';
import { createDataPlaneApp, DataPlaneAppOptions } from '../../../apps/data-plane/src/bootstrap';

export * from '../../../apps/data-plane/src/project-context';

export interface RunningDataPlane {
  app: NestFastifyApplication;
  /** `http://127.0.0.1:<port>`, the `{base_url}`. */
  baseUrl: string;
}

/** Boots the data plane in-process on the config's port (0 in tests: any free port). */
export async function startDataPlane(
  config: AppConfig,
  options?: DataPlaneAppOptions,
): Promise<RunningDataPlane> {
  const app = await createDataPlaneApp(config, options);
  return { app, baseUrl: await app.getUrl() };
}
