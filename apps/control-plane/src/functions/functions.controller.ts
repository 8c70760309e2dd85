import {
  Body,
  Controller,
  DefaultValuePipe,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  ParseIntPipe,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { Errors } from '@baseplate/errors';
import { AuthenticatedAccount, CurrentAccount } from '../common/current-account.decorator';
import {
  CreateFunctionDto,
  FunctionConfigResponse,
  FunctionResponse,
  InvocationResponse,
  UpdateFunctionConfigDto,
  UpdateFunctionDto,
} from './dto/functions.dto';
import { FunctionsService } from './functions.service';

const limitPipe = new ParseIntPipe({
  exceptionFactory: () => Errors.validation(['limit must be an integer between 1 and 200']),
});

@ApiTags('functions')
@ApiBearerAuth()
@Controller('v1/projects/:ref')
export class FunctionsController {
  constructor(private readonly functions: FunctionsService) {}

  @Get('functions')
  @ApiOperation({ summary: "The project's edge functions" })
  @ApiOkResponse({ type: [FunctionResponse] })
  list(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.functions.list(account.id, ref);
  }

  @Post('functions')
  @ApiOperation({
    summary:
      'Deploy a new function (compiled and load-checked before it answers: 400 with the error otherwise)',
  })
  @ApiCreatedResponse({ type: FunctionResponse })
  create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() dto: CreateFunctionDto,
  ) {
    return this.functions.create(account.id, ref, dto);
  }

  @Get('functions/:slug')
  @ApiOkResponse({ type: FunctionResponse })
  get(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Param('slug') slug: string,
  ) {
    return this.functions.get(account.id, ref, slug);
  }

  @Patch('functions/:slug')
  @ApiOperation({
    summary: 'Rename, or deploy `body` as the next version (the old one serves until then)',
  })
  @ApiOkResponse({ type: FunctionResponse })
  update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Param('slug') slug: string,
    @Body() dto: UpdateFunctionDto,
  ) {
    return this.functions.update(account.id, ref, slug, dto);
  }

  @Delete('functions/:slug')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a function; its processes stop' })
  @ApiOkResponse({ type: FunctionResponse })
  remove(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Param('slug') slug: string,
  ) {
    return this.functions.remove(account.id, ref, slug);
  }

  @Get('functions/:slug/body')
  @Header('content-type', 'text/plain; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOperation({ summary: 'The source of the active version, as deployed' })
  body(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Param('slug') slug: string,
  ) {
    return this.functions.body(account.id, ref, slug);
  }

  @Get('functions/:slug/logs')
  @ApiOperation({
    summary: 'The latest invocations, newest first, with their captured console output',
  })
  @ApiOkResponse({ type: [InvocationResponse] })
  logs(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Param('slug') slug: string,
    @Query('limit', new DefaultValuePipe('50'), limitPipe) limit: number,
  ) {
    if (limit < 1 || limit > 200)
      throw Errors.validation(['limit must be an integer between 1 and 200']);
    return this.functions.logs(account.id, ref, slug, limit);
  }

  @Get('config/functions')
  @ApiOperation({ summary: "The project's function limits" })
  @ApiOkResponse({ type: FunctionConfigResponse })
  getConfig(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string) {
    return this.functions.getConfig(account.id, ref);
  }

  @Patch('config/functions')
  @ApiOperation({ summary: 'Change function limits; they apply to new processes at once' })
  @ApiOkResponse({ type: FunctionConfigResponse })
  updateConfig(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() dto: UpdateFunctionConfigDto,
  ) {
    return this.functions.updateConfig(account.id, ref, dto);
  }
}
