import { JobsOptions } from 'bullmq';

/**
 * The job contract shared by producers (control plane) and the worker: queue names,
 * job names, payloads, deterministic ids and retry policy, all in one place.
 */
export const QUEUES = {
  provisioning: 'provisioning',
  email: 'email',
  functions: 'functions',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface ProvisioningPayloads {
  'create-project': { ref: string };
  'delete-project': { ref: string };
  /** `keysVersion` is the version the rotation produces; a retry that finds it reached is done. */
  'rotate-keys': { ref: string; keysVersion: number };
  /** `digest` of the project migration set this run brings every database to. */
  'upgrade-projects': { digest: string };
}
export type ProvisioningJobName = keyof ProvisioningPayloads;

/** What an auth email is about (the one-time token it carries). */
export type EmailKind = 'signup' | 'invite' | 'recovery' | 'magiclink' | 'email_change';

/** A rendered message; links in it carry one-time tokens, so it is never logged. */
export interface EmailMessage {
  kind: EmailKind;
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface EmailPayloads {
  /**
   * Sent with the project's SMTP settings, else the platform's SMTP_URL, else captured in the
   * control database (`captured_emails`, read by GET /v1/projects/{ref}/auth/emails).
   */
  'send-email': { ref: string; message: EmailMessage };
}
export type EmailJobName = keyof EmailPayloads;

export interface FunctionsPayloads {
  /**
   * Compiles `source` (esbuild), loads it in the runtime to find its handler, then stores it
   * as version `expectedVersion + 1` (1 for a new function) unless another deploy got there
   * first. Compile and load errors are the caller's: they complete the job with `ok: false`.
   */
  'deploy-function': {
    ref: string;
    slug: string;
    name: string;
    source: string;
    /** The version the deploy replaces (0: a new function). */
    expectedVersion: number;
  };
}
export type FunctionsJobName = keyof FunctionsPayloads;

export type DeployFunctionResult =
  | { ok: true; id: string; version: number }
  | { ok: false; reason: 'invalid' | 'conflict'; error: string };

/** Every job name, per queue. The worker refuses to start unless each has exactly one handler. */
export const JOB_NAMES: Record<QueueName, readonly string[]> = {
  provisioning: [
    'create-project',
    'delete-project',
    'rotate-keys',
    'upgrade-projects',
  ] satisfies ProvisioningJobName[],
  email: ['send-email'] satisfies EmailJobName[],
  functions: ['deploy-function'] satisfies FunctionsJobName[],
};

// BullMQ forbids ':' in custom ids, hence the dots.
export const jobIds = {
  createProject: (ref: string) => `create-project.${ref}`,
  deleteProject: (ref: string) => `delete-project.${ref}`,
  rotateKeys: (ref: string, keysVersion: number) => `rotate-keys.${ref}.${keysVersion}`,
  upgradeProjects: (digest: string) => `upgrade-projects.${digest}`,
  /** Same source, name and starting version: the same deploy (a retried request joins it). */
  deployFunction: (ref: string, slug: string, expectedVersion: number, digest: string) =>
    `deploy-function.${ref}.${slug}.${expectedVersion}.${digest}`,
};

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

/** Retries with exponential backoff; finished jobs are kept a while for inspection. */
export const defaultJobOptions = (policy: RetryPolicy): JobsOptions => ({
  attempts: policy.attempts,
  backoff: { type: 'exponential', delay: policy.backoffMs },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
});

/**
 * Email jobs carry live one-time links: a sent message leaves Redis at once, a failed one
 * after a day (long past the links' expiry).
 */
export const emailJobOptions = (policy: RetryPolicy): JobsOptions => ({
  attempts: policy.attempts,
  backoff: { type: 'exponential', delay: policy.backoffMs },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
});

/** Progress of create-project, reported with job.updateProgress and mirrored on the project row. */
export const CREATE_PROJECT_STEPS = {
  secretsSealed: 10,
  databaseCreated: 40,
  databaseFinished: 80,
  active: 100,
} as const;
