import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { RestConfigResponse, UpdateRestConfigDto } from './dto/rest-config.dto';
import { RestConfigService } from './rest-config.service';

@ApiTags('rest-config')
@ApiBearerAuth()
@Controller('v1/projects/:ref/postgrest')
export class RestConfigController {
  constructor(private readonly configs: RestConfigService) {}

  @Get()
  @ApiOperation({
    summary: "The project's REST API settings: exposed schemas, search path, row cap",
  })
  @ApiOkResponse({ type: RestConfigResponse })
  get(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.configs.get(account.id, ref);
  }

  @Patch()
  @ApiOperation({ summary: 'Change REST API settings; they apply at once, without a restart' })
  @ApiOkResponse({ type: RestConfigResponse })
  update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() dto: UpdateRestConfigDto,
  ) {
    return this.configs.update(account.id, ref, dto);
  }
}
