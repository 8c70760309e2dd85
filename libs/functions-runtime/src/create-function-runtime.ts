import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import type { AppConfig } from '@baseplate/config';
import type { DockerApi } from './docker/container-worker';
import { createDockerRuntime } from './docker/docker-driver';
import { createProcessRuntime } from './process/process-driver';
import type { FunctionRuntime } from './runtime';

const PRLIMIT_PATHS = ['/usr/bin/prlimit', '/bin/prlimit'];

/** The driver FUNCTIONS_RUNTIME names, configured from the app config. Starts nothing yet. */
export function createFunctionRuntime(config: AppConfig): FunctionRuntime {
  const pool = {
    uid: config.functionsUid,
    idleMs: config.functionsIdleMs,
    recycleAfter: config.functionsRecycleAfter,
  };
  if (config.functionsRuntime === 'docker') {
    return createDockerRuntime({
      ...pool,
      // DOCKER_HOST and friends, or the default socket, as the docker CLI would.
      docker: new Docker() as unknown as DockerApi,
      image: config.functionsDockerImage,
      network: config.functionsDockerNetwork,
    });
  }
  return createProcessRuntime({
    ...pool,
    maxWorkers: config.functionsMaxWorkers,
    prlimitPath: findPrlimit(),
    // Node's own variable, not app config: the CA bundle HTTPS egress must trust (workers get
    // no other environment).
    extraCaCerts: process.env.NODE_EXTRA_CA_CERTS,
  });
}

/** prlimit on Linux; null elsewhere (no such tool: workers get the heap cap only). */
function findPrlimit(): string | null | undefined {
  if (process.platform !== 'linux') return null;
  return PRLIMIT_PATHS.find((p) => existsSync(p));
}
