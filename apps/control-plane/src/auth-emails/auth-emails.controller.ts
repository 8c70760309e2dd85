import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { AuthEmailsService } from './auth-emails.service';
import { AuthEmailResponse, ListAuthEmailsQuery } from './dto/auth-emails.dto';

@ApiTags('auth-emails')
@ApiBearerAuth()
@Controller('v1/projects/:ref/auth/emails')
export class AuthEmailsController {
  constructor(private readonly emails: AuthEmailsService) {}

  @Get()
  @ApiOperation({
    summary: 'Auth emails captured because no SMTP is configured, newest first',
    description:
      'Sign-up, invite, recovery, magic-link and email-change emails of a project with no SMTP settings ' +
      '(and a platform without SMTP_URL) are kept here instead of being sent; the newest ' +
      'CAPTURED_EMAILS_KEEP per project are kept. Their links carry live one-time tokens.',
  })
  @ApiOkResponse({ type: [AuthEmailResponse] })
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Query() query: ListAuthEmailsQuery,
  ) {
    return this.emails.list(account.id, ref, query.limit);
  }
}
