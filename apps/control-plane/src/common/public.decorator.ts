import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'baseplate:public';
/** Marks a route that needs no Bearer token (sign-up and login only). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
