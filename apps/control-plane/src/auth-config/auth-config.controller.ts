import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { AuthConfigService } from './auth-config.service';
import { AuthConfigResponse, UpdateAuthConfigDto } from './dto/auth-config.dto';

@ApiTags('auth-config')
@ApiBearerAuth()
@Controller('v1/projects/:ref/config/auth')
export class AuthConfigController {
  constructor(private readonly configs: AuthConfigService) {}

  @Get()
  @ApiOperation({ summary: "The project's auth settings (smtp_pass is never returned)" })
  @ApiOkResponse({ type: AuthConfigResponse })
  get(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.configs.get(account.id, ref);
  }

  @Patch()
  @ApiOperation({ summary: 'Change auth settings; they apply at once, without a restart' })
  @ApiOkResponse({ type: AuthConfigResponse })
  update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() dto: UpdateAuthConfigDto,
  ) {
    return this.configs.update(account.id, ref, dto);
  }
}
