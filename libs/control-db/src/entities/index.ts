import { AccessToken } from './access-token.entity';
import { Account } from './account.entity';
import { CapturedEmail } from './captured-email.entity';
import { EdgeFunction, FunctionInvocation, ProjectFunctionConfig } from './function.entity';
import { Project } from './project.entity';
import { ProjectAuthConfig } from './project-auth-config.entity';
import { ProjectRestConfig, REST_CONFIG_DEFAULTS } from './project-rest-config.entity';

export {
  AccessToken,
  Account,
  CapturedEmail,
  EdgeFunction,
  FunctionInvocation,
  Project,
  ProjectFunctionConfig,
  ProjectAuthConfig,
  ProjectRestConfig,
  REST_CONFIG_DEFAULTS,
};
export * from './project.entity';
export const CONTROL_ENTITIES = [
  Account,
  AccessToken,
  Project,
  ProjectAuthConfig,
  ProjectRestConfig,
  CapturedEmail,
  EdgeFunction,
  FunctionInvocation,
  ProjectFunctionConfig,
];
