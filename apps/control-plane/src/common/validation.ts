import { ValidationError, ValidationPipe } from '@nestjs/common';
import { Errors } from '@baseplate/errors';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((m) => m.replace(e.property, path));
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

/** DTO validation: unknown fields are refused (a typo in a setting must not pass silently). */
export const validationPipe = (): ValidationPipe =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => Errors.validation(flatten(errors)),
  });
