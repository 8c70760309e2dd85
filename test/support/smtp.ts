import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './http';

/** One message as the server received it: envelope addresses and the raw RFC 5322 text. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** Headers and body as sent (CRLF lines; bodies may be quoted-printable, see decodedText). */
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  /** The credentials the server accepts. */
  user: string;
  pass: string;
  messages: ReceivedMail[];
  /** Every AUTH attempt, accepted or not (the password is not kept). */
  logins: { user: string; accepted: boolean }[];
  waitForMessage(
    predicate: (m: ReceivedMail) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  user?: string;
  pass?: string;
}

/**
 * A real SMTP server on 127.0.0.1 (any free port) for e2e tests: plain text, no STARTTLS,
 * AUTH PLAIN/LOGIN required and checked against `user`/`pass`, every message kept in memory.
 */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const user = options.user ?? 'smtp-user';
  const pass = options.pass ?? 'smtp-pass';
  const messages: ReceivedMail[] = [];
  const logins: TestSmtpServer['logins'] = [];

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    // Only connections the tests leave open hold close() this long.
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      const accepted = auth.username === user && auth.password === pass;
      logins.push({ user: auth.username ?? '', accepted });
      if (!accepted) return callback(new Error('Invalid username or password'));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors after start (a client dropping mid-session) must not crash the test process.
  server.on('error', () => undefined);
  const { port } = server.server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    port,
    user,
    pass,
    messages,
    logins,
    waitForMessage: (predicate, timeoutMs = 10_000) =>
      waitFor('an SMTP message', async () => messages.find(predicate), timeoutMs),
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

/** The raw message with quoted-printable soft line breaks and `=XX` escapes undone. */
export const decodedText = (raw: string): string =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
