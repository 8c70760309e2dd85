import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Public } from '../common/public.decorator';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { AccountsService } from './accounts.service';
import {
  AccessTokenResponse,
  AccessTokenSummary,
  AccountResponse,
  CreateAccessTokenDto,
  LoginDto,
  LoginResponse,
  SignupDto,
} from './dto/accounts.dto';
import { PasswordGuard } from './strategies';

@ApiTags('accounts')
@Controller('v1')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Public()
  @Post('signup')
  @ApiOperation({ summary: 'Create a platform account' })
  @ApiCreatedResponse({ type: AccountResponse })
  signup(@Body() dto: SignupDto): Promise<AccountResponse> {
    return this.accounts.signup(dto.email, dto.password);
  }

  @Public()
  @Post('login')
  @HttpCode(200)
  @UseGuards(PasswordGuard)
  @ApiOperation({ summary: 'Exchange email and password for an access token' })
  @ApiBody({ type: LoginDto })
  @ApiOkResponse({ type: LoginResponse })
  login(@Req() req: { user: AuthenticatedAccount }): Promise<LoginResponse> {
    return this.accounts.login(req.user);
  }

  @Post('access-tokens')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create a long-lived personal access token (shown once)' })
  @ApiCreatedResponse({ type: AccessTokenResponse })
  createToken(@CurrentAccount() account: AuthenticatedAccount, @Body() dto: CreateAccessTokenDto) {
    return this.accounts.createAccessToken(account.id, dto.name);
  }

  @Get('access-tokens')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'List personal access tokens (never their values)' })
  @ApiOkResponse({ type: [AccessTokenSummary] })
  listTokens(@CurrentAccount() account: AuthenticatedAccount) {
    return this.accounts.listAccessTokens(account.id);
  }

  @Delete('access-tokens/:id')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Revoke a personal access token' })
  async deleteToken(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id', new ParseUUIDPipe()) id: string,
  ) {
    await this.accounts.deleteAccessToken(account.id, id);
  }
}
