import { Logger } from '@nestjs/common';
import { AppConfig } from '@baseplate/config';
import { Project, ProjectStatus } from '@baseplate/control-db';
import { CREATE_PROJECT_STEPS } from '@baseplate/jobs';
import { ProjectDatabaseRepository } from './project-database.repository';
import { ProjectEventsRepository } from './project-events.repository';
import { ProjectFilesRepository } from './project-files.repository';
import { ProjectProvisioner } from './project-provisioner.service';
import { ProjectSecretsRepository } from './project-secrets.repository';
import { ProjectRepository } from './project.repository';

type Public<T> = { [K in keyof T]: T[K] };
type Row = Omit<Project, 'accountId' | 'name' | 'cluster' | 'dbName' | 'createdAt' | 'updatedAt'>;

const REF = 'abcdefghij0123456789';
const OTHER = 'zyxwvutsrq9876543210';

/** The control database as a map, with the same guards as the SQL. */
class FakeProjects implements Public<ProjectRepository> {
  rows = new Map<string, Row>();
  add(ref: string, status: ProjectStatus = 'COMING_UP', extra: Partial<Row> = {}): void {
    const base = { statusReason: null, progress: 0, jwtSecretEnc: null, adminPasswordEnc: null };
    this.rows.set(ref, { ref, status, ...base, keysVersion: 0, keysIssuedAt: null, ...extra });
  }
  async find(ref: string) {
    const row = this.rows.get(ref);
    return row ? ({ ...row } as Project) : null;
  }
  async withProjectLock<T>(_ref: string, fn: () => Promise<T>) {
    return fn();
  }
  async sealSecretsIfAbsent(ref: string, jwt: string, password: string) {
    const row = this.rows.get(ref);
    if (!row) return;
    row.jwtSecretEnc ??= jwt;
    row.adminPasswordEnc ??= password;
  }
  async setProgress(ref: string, progress: number) {
    const row = this.rows.get(ref);
    if (row) row.progress = Math.max(row.progress, progress);
  }
  async markActive(ref: string) {
    const row = this.rows.get(ref);
    if (!row || !['COMING_UP', 'INIT_FAILED'].includes(row.status)) return false;
    Object.assign(row, { status: 'ACTIVE_HEALTHY', statusReason: null, progress: 100 });
    row.keysIssuedAt ??= 1_700_000_000;
    row.keysVersion = Math.max(row.keysVersion, 1);
    return true;
  }
  async markInitFailed(ref: string, reason: string) {
    const row = this.rows.get(ref);
    if (row?.status !== 'COMING_UP') return false;
    Object.assign(row, { status: 'INIT_FAILED', statusReason: reason });
    return true;
  }
  async rotateJwtSecret(ref: string, jwt: string, keysVersion: number) {
    const row = this.rows.get(ref);
    if (row?.keysVersion !== keysVersion - 1) return false;
    Object.assign(row, { jwtSecretEnc: jwt, keysVersion });
    return true;
  }
  async delete(ref: string) {
    return this.rows.delete(ref);
  }
  async activeRefs() {
    return [...this.rows.values()].filter((r) => r.status === 'ACTIVE_HEALTHY').map((r) => r.ref);
  }
}

class FakeDatabases implements Public<ProjectDatabaseRepository> {
  calls: string[] = [];
  existing = new Set<string>();
  failOn = new Map<string, Error>();
  private run(call: string) {
    this.calls.push(call);
    const error = this.failOn.get(call);
    if (error) throw error;
  }
  async ensureTemplate(refresh = false) {
    this.run(refresh ? 'template!' : 'template');
  }
  async createFromTemplate(ref: string) {
    this.run(`create ${ref}`);
    const created = !this.existing.has(ref);
    this.existing.add(ref);
    return created;
  }
  async finish(ref: string, password: string) {
    this.run(`finish ${ref} ${password}`);
  }
  async drop(ref: string) {
    this.run(`drop ${ref}`);
    this.existing.delete(ref);
  }
  migrationDigest() {
    return 'digest-1';
  }
  async upgrade(ref: string) {
    this.run(`upgrade ${ref}`);
    return [];
  }
}

let sealed = 0;
const secrets: Public<ProjectSecretsRepository> = {
  sealNewJwtSecret: () => `sealed-jwt-${++sealed}`,
  sealNewPassword: () => `sealed-pw-${++sealed}`,
  open: (value: string) => value.replace('sealed-', 'open-'),
};

describe('ProjectProvisioner', () => {
  beforeAll(() => Logger.overrideLogger(false));
  let projects: FakeProjects;
  let databases: FakeDatabases;
  let removed: string[];
  let published: string[];
  let provisioner: ProjectProvisioner;
  let progress: number[];
  const report = async (p: number) => void progress.push(p);

  beforeEach(() => {
    projects = new FakeProjects();
    databases = new FakeDatabases();
    removed = [];
    published = [];
    progress = [];
    const files: Public<ProjectFilesRepository> = { remove: async (ref) => void removed.push(ref) };
    const events: Public<ProjectEventsRepository> = {
      invalidate: async (ref) => void published.push(ref),
    };
    const config = { provisionStepDelayMs: 0 } as AppConfig;
    provisioner = new ProjectProvisioner(
      config,
      projects as unknown as ProjectRepository,
      databases as unknown as ProjectDatabaseRepository,
      files as ProjectFilesRepository,
      secrets as ProjectSecretsRepository,
      events as ProjectEventsRepository,
    );
  });

  describe('createProject', () => {
    it('seals secrets, creates and finishes the database, activates, publishes', async () => {
      projects.add(REF);
      await expect(provisioner.createProject(REF, report)).resolves.toBe('created');
      const row = projects.rows.get(REF)!;
      expect(row).toMatchObject({ status: 'ACTIVE_HEALTHY', progress: 100, keysVersion: 1 });
      expect(row.jwtSecretEnc).toMatch(/^sealed-jwt-/);
      const password = row.adminPasswordEnc!.replace('sealed-', 'open-');
      expect(databases.calls).toEqual([`create ${REF}`, `finish ${REF} ${password}`]);
      expect(progress).toEqual(Object.values(CREATE_PROJECT_STEPS));
      expect(published).toEqual([REF]);
    });

    it('keeps the secrets sealed by an attempt that crashed, and reuses its database', async () => {
      projects.add(REF, 'COMING_UP', {
        jwtSecretEnc: 'sealed-jwt-old',
        adminPasswordEnc: 'sealed-pw-old',
        progress: 40,
      });
      databases.existing.add(REF);
      await expect(provisioner.createProject(REF, report)).resolves.toBe('created');
      const row = projects.rows.get(REF)!;
      expect(row.jwtSecretEnc).toBe('sealed-jwt-old');
      expect(databases.calls).toEqual([`create ${REF}`, `finish ${REF} open-pw-old`]);
      expect(row.progress).toBe(100);
    });

    it.each([
      ['no row', undefined],
      ['a project going down', 'GOING_DOWN' as const],
    ])('does nothing for %s', async (_what, status) => {
      if (status) projects.add(REF, status);
      await expect(provisioner.createProject(REF, report)).resolves.toBe('skipped');
      expect(databases.calls).toEqual([]);
      expect(published).toEqual([]);
      expect(progress).toEqual([]);
    });

    it('finds an active project done', async () => {
      projects.add(REF, 'ACTIVE_HEALTHY', { jwtSecretEnc: 'sealed-jwt-x' });
      await expect(provisioner.createProject(REF, report)).resolves.toBe('already-active');
      expect(databases.calls).toEqual([]);
      expect(projects.rows.get(REF)!.jwtSecretEnc).toBe('sealed-jwt-x');
    });

    it('ignores a malformed ref without touching anything', async () => {
      await expect(provisioner.createProject('../etc', report)).resolves.toBe('skipped');
      expect(databases.calls).toEqual([]);
    });

    it('does not revive a project that started going down mid-create', async () => {
      projects.add(REF);
      databases.finish = async () => void (projects.rows.get(REF)!.status = 'GOING_DOWN');
      await expect(provisioner.createProject(REF, report)).resolves.toBe('skipped');
      expect(projects.rows.get(REF)!.status).toBe('GOING_DOWN');
      expect(published).toEqual([]);
    });
  });

  describe('createProjectFailed', () => {
    it('marks a coming-up project INIT_FAILED with the reason, once', async () => {
      projects.add(REF);
      await provisioner.createProjectFailed(REF, new Error('schema "auth" does not exist'));
      await provisioner.createProjectFailed(REF, new Error('later'));
      expect(projects.rows.get(REF)).toMatchObject({
        status: 'INIT_FAILED',
        statusReason: 'schema "auth" does not exist',
      });
      expect(published).toEqual([REF]);
    });

    it('leaves an active project alone', async () => {
      projects.add(REF, 'ACTIVE_HEALTHY');
      await provisioner.createProjectFailed(REF, new Error('boom'));
      expect(projects.rows.get(REF)!.status).toBe('ACTIVE_HEALTHY');
    });
  });

  describe('deleteProject', () => {
    it('drops the database, removes files, deletes the row, publishes; a repeat finds it gone', async () => {
      projects.add(REF, 'GOING_DOWN');
      await expect(provisioner.deleteProject(REF)).resolves.toBe('deleted');
      await expect(provisioner.deleteProject(REF)).resolves.toBe('already-gone');
      expect(databases.calls).toEqual([`drop ${REF}`, `drop ${REF}`]);
      expect(removed).toEqual([REF, REF]);
      expect(projects.rows.has(REF)).toBe(false);
      expect(published).toEqual([REF, REF]);
    });

    it('keeps the row when dropping the database fails, so the retry can find it', async () => {
      projects.add(REF, 'GOING_DOWN');
      databases.failOn.set(`drop ${REF}`, new Error('database is busy'));
      await expect(provisioner.deleteProject(REF)).rejects.toThrow('database is busy');
      expect(projects.rows.has(REF)).toBe(true);
      expect(removed).toEqual([]);
    });
  });

  describe('rotateKeys', () => {
    beforeEach(() =>
      projects.add(REF, 'ACTIVE_HEALTHY', { jwtSecretEnc: 'sealed-jwt-0', keysVersion: 1 }),
    );

    it('installs a new secret at the next version; a repeat changes nothing but publishes again', async () => {
      await expect(provisioner.rotateKeys(REF, 2)).resolves.toBe('rotated');
      const after = projects.rows.get(REF)!.jwtSecretEnc;
      expect(after).not.toBe('sealed-jwt-0');
      await expect(provisioner.rotateKeys(REF, 2)).resolves.toBe('already-rotated');
      expect(projects.rows.get(REF)).toMatchObject({ jwtSecretEnc: after, keysVersion: 2 });
      expect(published).toEqual([REF, REF]);
    });

    it('fails (to retry later) a version that skips one', async () => {
      await expect(provisioner.rotateKeys(REF, 3)).rejects.toThrow(/version 3 waits for 2/);
      expect(projects.rows.get(REF)).toMatchObject({
        jwtSecretEnc: 'sealed-jwt-0',
        keysVersion: 1,
      });
    });

    it('skips an unknown project and a nonsense version', async () => {
      await expect(provisioner.rotateKeys(OTHER, 2)).resolves.toBe('skipped');
      await expect(provisioner.rotateKeys(REF, 1.5)).resolves.toBe('skipped');
      expect(published).toEqual([]);
    });
  });

  describe('upgradeProjects', () => {
    it('refreshes the template, then upgrades every active project', async () => {
      projects.add(REF, 'ACTIVE_HEALTHY');
      projects.add(OTHER, 'ACTIVE_HEALTHY');
      projects.add('comingup000000000000');
      await expect(provisioner.upgradeProjects('digest-1')).resolves.toEqual({ upgraded: 2 });
      expect(databases.calls).toEqual(['template!', `upgrade ${REF}`, `upgrade ${OTHER}`]);
    });

    it('upgrades the others when one fails, then fails naming it', async () => {
      projects.add(REF, 'ACTIVE_HEALTHY');
      projects.add(OTHER, 'ACTIVE_HEALTHY');
      databases.failOn.set(`upgrade ${REF}`, new Error('connection refused'));
      await expect(provisioner.upgradeProjects('digest-1')).rejects.toThrow(
        `Upgrade failed for 1 of 2 projects: ${REF}: connection refused`,
      );
      expect(databases.calls).toContain(`upgrade ${OTHER}`);
    });

    it('refuses a digest of another release without touching any database', async () => {
      projects.add(REF, 'ACTIVE_HEALTHY');
      await expect(provisioner.upgradeProjects('digest-2')).rejects.toThrow(/asks for digest-2/);
      expect(databases.calls).toEqual([]);
    });
  });
});
