import { AccessToken } from './access-token.entity';
import { Account } from './account.entity';
import { Project } from './project.entity';
import { ProjectAuthConfig } from './project-auth-config.entity';

export { AccessToken, Account, Project, ProjectAuthConfig };
export * from './project.entity';
export const CONTROL_ENTITIES = [Account, AccessToken, Project, ProjectAuthConfig];
