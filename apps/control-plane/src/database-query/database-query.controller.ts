import { Body, Controller, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { ProjectSqlService } from '../projects/project-sql.service';
import { ProjectsService } from '../projects/projects.service';
import { DatabaseQueryDto } from './dto/database-query.dto';

@ApiTags('database')
@ApiBearerAuth()
@Controller('v1/projects/:ref/database')
export class DatabaseQueryController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly sql: ProjectSqlService,
  ) {}

  @Post('query')
  @ApiOperation({
    summary: "Run SQL as the project's admin role",
    description: 'Answers the rows of the last statement. Runs under a statement timeout.',
  })
  @ApiCreatedResponse({
    description: 'Rows of the last statement',
    schema: { type: 'array', items: { type: 'object' } },
  })
  @ApiBadRequestResponse({ description: 'SQL error: `message` and `sqlstate`' })
  async query(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() dto: DatabaseQueryDto,
  ) {
    const project = await this.projects.getActive(account.id, ref);
    return this.sql.runAsAdmin(project, dto.query);
  }
}
