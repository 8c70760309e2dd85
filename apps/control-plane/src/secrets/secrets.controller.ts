import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseArrayPipe,
  PipeTransform,
  Post,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Errors } from '@baseplate/errors';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import { SecretDigestResponse, SecretDto } from './dto/secrets.dto';
import { SecretsService } from './secrets.service';

const arrayOf = <T>(items: new () => T) =>
  new ParseArrayPipe({
    items,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => Errors.validation(([] as unknown[]).concat(errors).map(String)),
  });

/** ParseArrayPipe would coerce `[1]` to `["1"]`; names must arrive as strings. */
const names: PipeTransform<unknown, string[]> = {
  transform(value: unknown) {
    if (
      !Array.isArray(value) ||
      !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 256)
    ) {
      throw Errors.validation(['body must be a JSON array of secret names']);
    }
    return value as string[];
  },
};

@ApiTags('secrets')
@ApiBearerAuth()
@Controller('v1/projects/:ref/secrets')
export class SecretsController {
  constructor(private readonly secrets: SecretsService) {}

  @Get()
  @ApiOperation({ summary: 'List secrets with the SHA-256 digest of each value' })
  @ApiOkResponse({ type: [SecretDigestResponse] })
  list(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.secrets.list(account.id, ref);
  }

  @Post()
  @ApiOperation({ summary: 'Create or replace secrets' })
  @ApiBody({ type: [SecretDto] })
  @ApiCreatedResponse({ type: [SecretDigestResponse] })
  upsert(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body(arrayOf(SecretDto)) body: SecretDto[],
  ) {
    return this.secrets.upsert(account.id, ref, body);
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete secrets by name' })
  @ApiBody({ schema: { type: 'array', items: { type: 'string' }, example: ['STRIPE_KEY'] } })
  remove(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body(names) body: string[],
  ) {
    return this.secrets.remove(account.id, ref, body);
  }
}
