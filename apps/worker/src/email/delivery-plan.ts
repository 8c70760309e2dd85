import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';

/** Where one SMTP delivery connects to. `auth.pass` is a live secret: never log a target. */
export interface SmtpTarget {
  host: string;
  port: number;
  /** TLS from the first byte (port 465, smtps://); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  auth?: { user: string; pass: string };
}

/** A plain address, or a display name and address that nodemailer quotes and encodes itself. */
export type Sender = string | { name: string; address: string };

export type DeliveryVia = 'project-smtp' | 'platform-smtp';

export type DeliveryPlan =
  { via: DeliveryVia; smtp: SmtpTarget; from: Sender } | { via: 'capture' };

/** A project's SMTP columns of project_auth_configs, the password already unsealed. */
export interface ProjectSmtpSettings {
  host: string | null;
  port: number | null;
  user: string | null;
  pass: string | null;
  adminEmail: string | null;
  senderName: string | null;
}

/** The platform's mail settings (SMTP_URL, SMTP_FROM). */
export interface PlatformMailSettings {
  smtpUrl?: string;
  smtpFrom: string;
}

/** Submission port when none is given; 465 is implicit TLS. */
const DEFAULT_PORT = 587;
const TLS_PORT = 465;

/**
 * Picks how one auth email leaves: the project's own SMTP server when it set a host, else
 * the platform's SMTP_URL, else nowhere (captured for the management API). Never falls back
 * from a configured server to capture: a broken server must show as failed jobs, not as
 * mail that silently stops arriving.
 */
export function planDelivery(
  project: ProjectSmtpSettings | null,
  platform: PlatformMailSettings,
): DeliveryPlan {
  if (project?.host) {
    const port = project.port ?? DEFAULT_PORT;
    const smtp: SmtpTarget = { host: project.host, port, secure: port === TLS_PORT };
    if (project.user) smtp.auth = { user: project.user, pass: project.pass ?? '' };
    return { via: 'project-smtp', smtp, from: projectSender(project, platform.smtpFrom) };
  }
  if (platform.smtpUrl) {
    return { via: 'platform-smtp', smtp: parseSmtpUrl(platform.smtpUrl), from: platform.smtpFrom };
  }
  return { via: 'capture' };
}

function projectSender(project: ProjectSmtpSettings, fallback: string): Sender {
  if (!project.adminEmail) return fallback;
  return project.senderName
    ? { name: project.senderName, address: project.adminEmail }
    : project.adminEmail;
}

/** `smtp://user:pass@host:port` or `smtps://...`; user and password are percent-decoded. */
export function parseSmtpUrl(value: string): SmtpTarget {
  const url = new URL(value);
  const secure = url.protocol === 'smtps:';
  const smtp: SmtpTarget = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? TLS_PORT : DEFAULT_PORT,
    secure,
  };
  if (url.username) {
    smtp.auth = {
      user: decodeURIComponent(url.username),
      pass: decodeURIComponent(url.password),
    };
  }
  return smtp;
}

/** Bounds every wait of one delivery, so a dead server fails the attempt well inside the job lock. */
export const SMTP_TIMEOUT_MS = 10_000;

/** nodemailer options for one non-pooled connection. */
export function smtpTransportOptions(target: SmtpTarget): SMTPTransportOptions {
  return {
    host: target.host,
    port: target.port,
    secure: target.secure,
    // Not secure: STARTTLS when the server offers it (nodemailer's default), with the
    // certificate verified; a server without it gets the message in clear text.
    auth: target.auth ? { user: target.auth.user, pass: target.auth.pass } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
    // The messages carry one-time links and the session carries credentials: no SMTP logs.
    logger: false,
    debug: false,
    // Message content comes from templates; it must never make the worker read files or URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
