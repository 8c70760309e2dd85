import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { CreateProjectDto, ProjectResponse } from './dto/projects.dto';
import { ProjectsService } from './projects.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('v1/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a project; it comes up asynchronously (COMING_UP, then ACTIVE_HEALTHY)',
  })
  @ApiCreatedResponse({ type: ProjectResponse })
  async create(@CurrentAccount() account: AuthenticatedAccount, @Body() dto: CreateProjectDto) {
    return this.projects.view(await this.projects.create(account.id, dto.name));
  }

  @Get()
  @ApiOperation({ summary: "List the caller's projects" })
  @ApiOkResponse({ type: [ProjectResponse] })
  async list(@CurrentAccount() account: AuthenticatedAccount) {
    return (await this.projects.list(account.id)).map((p) => this.projects.view(p));
  }

  @Get(':ref')
  @ApiParam({ name: 'ref', description: 'Project ref' })
  @ApiOperation({ summary: 'Get a project and its status' })
  @ApiOkResponse({ type: ProjectResponse })
  async get(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.projects.view(await this.projects.getOwned(account.id, ref));
  }

  @Delete(':ref')
  @ApiParam({ name: 'ref', description: 'Project ref' })
  @ApiOperation({
    summary: 'Delete a project with its database, files and functions (asynchronous: GOING_DOWN)',
  })
  @ApiOkResponse({ type: ProjectResponse })
  async remove(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.projects.view(await this.projects.remove(account.id, ref));
  }
}
