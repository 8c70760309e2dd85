import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** The account authenticated by the Bearer strategy. */
export interface AuthenticatedAccount {
  id: string;
  email: string;
}

export const CurrentAccount = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthenticatedAccount =>
    ctx.switchToHttp().getRequest<{ user: AuthenticatedAccount }>().user,
);
