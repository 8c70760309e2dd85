import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RawBody } from '../http/raw-body';
import { sendJson } from '../http/send-json';
import { ProjectCtx, type ProjectRequestContext } from '../project-context';
import { FunctionsService } from './functions.service';

const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * `POST /functions/v1/<ref>/<slug>` (path A) and `POST /projects/<ref>/functions/v1/<slug>`
 * (path B): both arrive here as `/functions/v1/<slug>` once the ref is taken from the path.
 * The service key only; the JSON body is the handler's payload, its result the JSON answer.
 */
@ApiExcludeController()
@Controller('functions/v1')
export class FunctionsController {
  constructor(private readonly functions: FunctionsService) {}

  @All(':slug')
  async invoke(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (req.method !== 'POST') {
      void reply.header('allow', 'POST');
      return sendJson(reply, 405, {
        error: `Method ${req.method} is not allowed: invoke functions with POST`,
      });
    }
    // Headers never reach the handler, so the key is the only gate: the spec's service key.
    if (ctx.role !== 'service_role') {
      return sendJson(reply, 401, { error: 'Edge functions are invoked with the service key' });
    }
    const slug = (req.params as { slug: string }).slug;
    const deployed = ctx.context.functions.deployed;
    const entry = SLUG.test(slug) && Object.hasOwn(deployed, slug) ? deployed[slug] : undefined;
    if (!entry) return sendJson(reply, 404, { error: `Function ${slug} not found` });

    const limits = ctx.context.functions.limits;
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > limits.maxPayloadBytes) {
      this.functions.refused(entry, 'too_large', 413);
      return sendJson(reply, 413, {
        error: `The payload is larger than ${limits.maxPayloadBytes} bytes`,
      });
    }
    if (req.body instanceof RawBody) {
      if (req.body.text.trim() !== '') {
        this.functions.refused(entry, 'bad_request', 400);
        return sendJson(reply, 400, {
          error: 'The body must be JSON (Content-Type: application/json)',
        });
      }
    }
    const payload = req.body === undefined || req.body instanceof RawBody ? {} : req.body;
    // A chunked body has no Content-Length: its size is known once parsed.
    if (
      req.headers['content-length'] === undefined &&
      Buffer.byteLength(JSON.stringify(payload)) > limits.maxPayloadBytes
    ) {
      this.functions.refused(entry, 'too_large', 413);
      return sendJson(reply, 413, {
        error: `The payload is larger than ${limits.maxPayloadBytes} bytes`,
      });
    }
    const answer = await this.functions.invoke(ctx, slug, entry, payload);
    return sendJson(reply, answer.status, answer.body);
  }
}
