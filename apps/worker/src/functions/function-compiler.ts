import { transform } from 'esbuild';

/** Largest accepted source (the body of a deploy). */
export const MAX_SOURCE_BYTES = 1024 * 1024;

export class CompileError extends Error {
  override name = 'CompileError';
}

interface EsbuildMessage {
  text: string;
  location?: { line: number; column: number; lineText?: string } | null;
}

/**
 * TypeScript or JavaScript (ES module or CommonJS) → CommonJS for Node 20, as esbuild compiles
 * it; a syntax error becomes a CompileError naming the line and column. Imports stay
 * `require` calls, so only the runtime's allow-list decides what a function may load.
 */
export async function compileFunction(source: string, slug: string): Promise<string> {
  try {
    const result = await transform(source, {
      loader: 'ts',
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      sourcefile: `${slug}.ts`,
      logLevel: 'silent',
    });
    return result.code;
  } catch (e) {
    const errors = (e as { errors?: EsbuildMessage[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      throw new CompileError(
        errors
          .slice(0, 5)
          .map((m) =>
            m.location ? `${slug}.ts:${m.location.line}:${m.location.column}: ${m.text}` : m.text,
          )
          .join('\n'),
      );
    }
    throw e;
  }
}
