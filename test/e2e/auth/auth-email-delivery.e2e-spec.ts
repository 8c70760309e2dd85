import { Job, Queue } from 'bullmq';
import type Redis from 'ioredis';
import { Client } from 'pg';
import { withClient } from '@baseplate/database';
import { createRedis, EmailMessage, emailJobOptions, EmailPayloads, QUEUES } from '@baseplate/jobs';
import { request, waitFor } from '../../support/http';
import { bootPlatform, type Platform, type TestProject } from '../../support/platform';
import { decodedText, startSmtpServer, type TestSmtpServer } from '../../support/smtp';

type SendEmail = EmailPayloads['send-email'];

/** Small, so the retention test needs few messages. */
const KEEP = 3;
/** Two attempts: enough to see a retry, few enough to see the final failure quickly. */
const ATTEMPTS = 2;

/**
 * The `email` queue end to end: send-email jobs (enqueued here as the data plane would) are
 * captured and listed by GET /v1/projects/{ref}/auth/emails when no SMTP is configured, and
 * delivered to a real SMTP server, never captured, once the project has one.
 */
describe('auth email delivery', () => {
  let platform: Platform;
  let owner: { token: string };
  let stranger: { token: string };
  let captured: TestProject;
  let smtpProject: TestProject;
  let redis: Redis;
  let queue: Queue<SendEmail>;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    platform = await bootPlatform({
      JOB_ATTEMPTS: String(ATTEMPTS),
      JOB_BACKOFF_MS: '50',
      CAPTURED_EMAILS_KEEP: String(KEEP),
    });
    [owner, stranger] = await Promise.all([platform.newAccount(), platform.newAccount()]);
    [captured, smtpProject] = await Promise.all([
      platform.newProject(owner.token, 'captured'),
      platform.newProject(owner.token, 'smtp'),
    ]);
    redis = createRedis(platform.config.redisUrl);
    queue = new Queue<SendEmail>(QUEUES.email, {
      connection: redis,
      prefix: platform.config.queuePrefix,
    });
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await queue?.close();
    await redis?.quit();
    await smtp?.close();
    await platform?.close();
  });

  let seq = 0;
  const newMessage = (): EmailMessage => {
    const n = ++seq;
    const link = `http://127.0.0.1:3000/verify?token=tok${n}x&type=signup`;
    return {
      kind: 'signup',
      to: `user${n}@example.com`,
      subject: `Confirm your signup ${n}`,
      html: `<h2>Confirm your signup</h2><p><a href="${link}">Confirm your mail</a></p>`,
      text: `Confirm your mail: ${link}`,
    };
  };
  const linkOf = (m: EmailMessage) => /http:\S+/.exec(m.text)![0];

  const enqueue = (ref: string, message: EmailMessage): Promise<Job<SendEmail>> =>
    queue.add(
      'send-email',
      { ref, message },
      emailJobOptions({
        attempts: platform.config.jobAttempts,
        backoffMs: platform.config.jobBackoffMs,
      }),
    );

  /** A completed email job is removed at once (emailJobOptions), so its state reads `unknown`. */
  const settled = (job: Job<SendEmail>) =>
    waitFor(`job ${job.id} to settle`, async () => {
      const state = await queue.getJobState(job.id!);
      return state === 'unknown' || state === 'failed' ? state : undefined;
    });

  const listEmails = (ref: string, token = owner.token, query = '') =>
    request(platform.control, 'GET', `/v1/projects/${ref}/auth/emails${query}`, { token });

  const setSmtp = async (ref: string, settings: Record<string, unknown>) => {
    const res = await request(platform.control, 'PATCH', `/v1/projects/${ref}/config/auth`, {
      token: owner.token,
      body: settings,
    });
    expect(res.status).toBe(200);
  };

  describe('without SMTP', () => {
    const sent: EmailMessage[] = [];

    beforeAll(async () => {
      // One at a time, so each is captured after the one before (newest-first is then defined).
      for (let i = 0; i < KEEP + 1; i++) {
        const message = newMessage();
        sent.push(message);
        await enqueue(captured.ref, message);
        await waitFor(`${message.subject} captured`, async () => {
          const res = await listEmails(captured.ref);
          return res.body?.[0]?.subject === message.subject;
        });
      }
    });

    it('lists captured emails newest first, keeping the newest CAPTURED_EMAILS_KEEP', async () => {
      const res = await listEmails(captured.ref);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(KEEP);
      const newest = sent.slice(-KEEP).reverse();
      expect(res.body.map((e: { subject: string }) => e.subject)).toEqual(
        newest.map((m) => m.subject),
      );
      const [first] = res.body;
      expect(Object.keys(first).sort()).toEqual(
        ['created_at', 'html', 'id', 'kind', 'subject', 'text', 'to'].sort(),
      );
      expect(first).toEqual({
        id: expect.any(Number),
        kind: 'signup',
        to: newest[0].to,
        subject: newest[0].subject,
        html: newest[0].html,
        text: newest[0].text,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      });
      const ids = res.body.map((e: { id: number }) => e.id);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    });

    it('honours limit and refuses an invalid one with a JSON 400', async () => {
      const two = await listEmails(captured.ref, owner.token, '?limit=2');
      expect(two.status).toBe(200);
      expect(two.body.map((e: { subject: string }) => e.subject)).toEqual(
        sent
          .slice(-2)
          .reverse()
          .map((m) => m.subject),
      );
      for (const limit of ['0', '201', 'abc', '1.5', '']) {
        const res = await listEmails(captured.ref, owner.token, `?limit=${limit}`);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'Bad Request', code: 'validation_failed' });
      }
    });

    it("is the owner's alone: another account gets 404, no token 401", async () => {
      const res = await listEmails(captured.ref, stranger.token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'Not Found', code: 'project_not_found' });
      expect(JSON.stringify(res.body)).not.toContain(sent[sent.length - 1].subject);
      const anonymous = await request(
        platform.control,
        'GET',
        `/v1/projects/${captured.ref}/auth/emails`,
      );
      expect(anonymous.status).toBe(401);
      // The other project of the same owner has its own (empty) list.
      expect((await listEmails(smtpProject.ref)).body).toEqual([]);
    });
  });

  describe("with the project's SMTP server", () => {
    beforeAll(() =>
      setSmtp(smtpProject.ref, {
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        smtp_user: smtp.user,
        smtp_pass: smtp.pass,
        smtp_admin_email: 'support@acme.test',
        smtp_sender_name: 'Acme Support',
      }),
    );

    it('delivers through SMTP with the project sender, and captures nothing', async () => {
      const message = newMessage();
      const job = await enqueue(smtpProject.ref, message);
      const mail = await smtp.waitForMessage((m) => m.to.includes(message.to));
      expect(mail.from).toBe('support@acme.test');
      expect(mail.raw).toContain(`Subject: ${message.subject}`);
      expect(mail.raw).toContain(`To: ${message.to}`);
      expect(mail.raw).toMatch(/^From: "?Acme Support"? <support@acme\.test>/m);
      expect(decodedText(mail.raw)).toContain(linkOf(message));
      expect(smtp.logins).toContainEqual({ user: smtp.user, accepted: true });
      expect(await settled(job)).toBe('unknown'); // completed (and removed)
      expect((await listEmails(smtpProject.ref)).body).toEqual([]);
    });

    it('fails the job for a retry on a wrong password, and does not capture the email', async () => {
      await setSmtp(smtpProject.ref, { smtp_pass: 'not-the-password' });
      const rejectedBefore = smtp.logins.filter((l) => !l.accepted).length;
      const message = newMessage();
      const job = await enqueue(smtpProject.ref, message);
      expect(await settled(job)).toBe('failed');
      const failed = (await queue.getJob(job.id!))!;
      // Every attempt was made (a retry, not an unrecoverable error) ...
      expect(failed.attemptsMade).toBe(ATTEMPTS);
      expect(smtp.logins.filter((l) => !l.accepted).length - rejectedBefore).toBe(ATTEMPTS);
      // ... and the stored reason holds codes only: no password, no address, no link.
      expect(failed.failedReason).toBe('Delivery through project-smtp failed: EAUTH 535');
      expect(smtp.messages.some((m) => m.to.includes(message.to))).toBe(false);
      expect((await listEmails(smtpProject.ref)).body).toEqual([]);
      await setSmtp(smtpProject.ref, { smtp_pass: smtp.pass });
    });
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = await request(platform.control, 'GET', '/docs-json');
    expect(doc.status).toBe(200);
    const op = doc.body.paths['/v1/projects/{ref}/auth/emails']?.get;
    expect(op).toBeDefined();
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(op.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'ref', in: 'path', required: true }),
        expect.objectContaining({
          name: 'limit',
          in: 'query',
          required: false,
          schema: expect.objectContaining({ minimum: 1, maximum: 200, default: 50 }),
        }),
      ]),
    );
    const schema = op.responses['200'].content['application/json'].schema;
    expect(schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/AuthEmailResponse' },
    });
    expect(Object.keys(doc.body.components.schemas.AuthEmailResponse.properties).sort()).toEqual(
      ['created_at', 'html', 'id', 'kind', 'subject', 'text', 'to'].sort(),
    );
  });

  it('does not retry a job for a project that does not exist', async () => {
    const job = await enqueue('zzzzzzzzzzzzzzzzzzzz', newMessage());
    expect(await settled(job)).toBe('failed');
    const failed = (await queue.getJob(job.id!))!;
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(/does not exist/);
  });

  it("deletes a project's captured emails with the project", async () => {
    const { ref } = captured;
    const count = () =>
      withClient(platform.config.databaseUrl, async (c: Client) => {
        const { rows } = await c.query(
          'SELECT count(*)::int AS n FROM captured_emails WHERE project_ref = $1',
          [ref],
        );
        return rows[0].n as number;
      });
    expect(await count()).toBe(KEEP);
    const deleted = await request(platform.control, 'DELETE', `/v1/projects/${ref}`, {
      token: owner.token,
    });
    expect(deleted.status).toBe(200);
    await waitFor(
      'project row to go',
      async () =>
        (await request(platform.control, 'GET', `/v1/projects/${ref}`, { token: owner.token }))
          .status === 404,
    );
    expect(await count()).toBe(0);
  });
});
