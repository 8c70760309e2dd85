import type { FastifyReply } from 'fastify';

/** Sends `body` as JSON with `status`: the one way data-plane handlers answer in JSON. */
export async function sendJson(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(body));
}
