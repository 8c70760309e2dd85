export * from './runtime';
export { createFunctionRuntime } from './create-function-runtime';
export { FunctionNotDeployedError } from './pooled-runtime';
export { createProcessRuntime, type ProcessRuntimeOptions } from './process/process-driver';
export { createDockerRuntime, type DockerRuntimeOptions } from './docker/docker-driver';
export type { DockerApi, ContainerHandle } from './docker/container-worker';
export { containerSpec, type ContainerSpecInput } from './docker/container-spec';
export { workerCommand, type WorkerCommand } from './process/worker-command';
export { RunnerFile } from './runner/runner-file';
