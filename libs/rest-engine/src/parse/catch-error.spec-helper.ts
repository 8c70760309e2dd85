import { PostgrestError } from '../postgrest-error';

/** Runs fn and returns the PostgrestError it throws, failing the test if it throws nothing. */
export function catchError(fn: () => unknown): PostgrestError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PostgrestError) return error;
    throw error;
  }
  throw new Error('expected a PostgrestError');
}
