import { AccessToken } from './access-token.entity';
import { Account } from './account.entity';
import { CapturedEmail } from './captured-email.entity';
import { Project } from './project.entity';
import { ProjectAuthConfig } from './project-auth-config.entity';
import { ProjectRestConfig, REST_CONFIG_DEFAULTS } from './project-rest-config.entity';

export {
  AccessToken,
  Account,
  CapturedEmail,
  Project,
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
];
