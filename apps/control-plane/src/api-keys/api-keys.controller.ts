import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { ApiKeysService } from './api-keys.service';

class ApiKeyResponse {
  @ApiProperty({ enum: ['anon', 'service_role'] }) name!: string;
  @ApiProperty({ description: 'HS256 JWT with claims role, ref, iss' }) api_key!: string;
}

@ApiTags('api-keys')
@ApiBearerAuth()
@Controller('v1/projects/:ref/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: 'The anon and service_role keys of a project' })
  @ApiOkResponse({ type: [ApiKeyResponse] })
  list(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.keys.list(account.id, ref);
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Issue a new JWT secret and new keys; the old keys stop working at once',
  })
  @ApiOkResponse({ type: [ApiKeyResponse] })
  rotate(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.keys.rotate(account.id, ref);
  }
}
