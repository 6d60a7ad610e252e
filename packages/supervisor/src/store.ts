/**
 * Users, API tokens, projects and their SOP graphs in Redis (key layout in keys.ts). Tokens are
 * kept only as their sha256, so what Redis holds cannot be used to log in. A step's rules and
 * template live in hashes of their own, so updating one is a single write that cannot lose a
 * concurrent update of the other.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { globEscape, KeyedPipeline, scanKeys } from '@switchyard/redis';
import { defaultSop } from './default-sop.js';
import { isoSeconds, SopStepSchema, type Project, type SopGraph, type SopStep, type TaskGroup, type User } from './domain.js';
import { supervisorKeys, type SupervisorKeys } from './keys.js';
import { CREATE_USER_SCRIPT, UPDATE_STEP_SCRIPT } from './scripts.js';
import { validateSop } from './sop.js';
import { TaskStore, type NewTaskGroup } from './task-store.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

export interface SupervisorStoreOptions {
  redis: Redis;
  /** Key prefix of the deployment (the queues' prefix); the Supervisor's keys sit under `{prefix}:supervisor:`. */
  prefix: string;
}

export class SupervisorStoreError extends Error {
  override name = 'SupervisorStoreError';
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const UserSchema = z.object({ user_id: z.string(), username: z.string(), created_at: z.string() });
const ProjectSchema = z.object({ project_id: z.string(), project_name: z.string(), description: z.string(), owner_id: z.string(), created_at: z.string() });
const StoredStep = SopStepSchema.omit({ rules: true, output_template: true }).extend({ position: z.number().int() });

export class SupervisorStore {
  readonly redis: Redis;
  readonly keys: SupervisorKeys;
  readonly tasks: TaskStore;

  constructor(options: SupervisorStoreOptions) {
    this.redis = options.redis;
    this.keys = supervisorKeys(options.prefix);
    this.tasks = new TaskStore(options.redis, this.keys);
  }

  /** A new user and their API token; the token is shown only here. Throws when the username is taken. */
  async createUser(input: { username: string }, now = new Date()): Promise<{ user: User; api_token: string }> {
    if (!USERNAME_PATTERN.test(input.username)) throw new SupervisorStoreError(`Username '${input.username}' may hold only letters, digits and . _ @ - (at most 64)`);
    const user: User = { user_id: randomUUID(), username: input.username, created_at: isoSeconds(now) };
    const api_token = `sv_${randomBytes(24).toString('base64url')}`;
    const keys = [this.keys.username(user.username), this.keys.user(user.user_id), this.keys.token(hashToken(api_token))];
    const created = await this.redis.eval(CREATE_USER_SCRIPT, keys.length, ...keys, user.user_id, user.username, user.created_at);
    if (created !== 1) throw new SupervisorStoreError(`Username '${user.username}' is taken`);
    return { user, api_token };
  }

  /** The user holding `token`, when that user is `username`. */
  async authenticate(username: string, token: string): Promise<User | undefined> {
    const userId = await this.redis.get(this.keys.token(hashToken(token)));
    const user = userId ? await this.getUser(userId) : undefined;
    return user?.username === username ? user : undefined;
  }

  async getUser(userId: string): Promise<User | undefined> {
    const hash = await this.redis.hgetall(this.keys.user(userId));
    return Object.keys(hash).length === 0 ? undefined : UserSchema.parse(hash);
  }

  /**
   * A project owned by `owner_id` with `sop` (default: the default SOP) and its first PENDING task
   * groups, all written in one transaction. Throws SopGraphError for a bad graph and
   * SupervisorStoreError for an initial task on an unknown step.
   */
  async createProject(input: { owner_id: string; project_name: string; description?: string; sop?: SopGraph; initial_tasks?: NewTaskGroup[] }, now: string): Promise<{ project: Project; steps: SopStep[]; tasks: TaskGroup[] }> {
    const sop = input.sop ?? defaultSop();
    validateSop(sop);
    const initial = input.initial_tasks ?? [];
    const identifiers = new Set(sop.steps.map((step) => step.identifier));
    const unknown = initial.findIndex((task) => !identifiers.has(task.sop_step_identifier));
    if (unknown >= 0) throw new SupervisorStoreError(`initial_tasks[${unknown}].sop_step_identifier: no step '${initial[unknown]?.sop_step_identifier}' in the SOP`);

    const project: Project = { project_id: randomUUID(), project_name: input.project_name, description: input.description ?? '', owner_id: input.owner_id, created_at: now };
    const id = project.project_id;
    const firstSequence = initial.length > 0 ? await this.tasks.nextSequences(initial.length) : 0;
    const multi = this.redis.multi().hset(this.keys.project(id), { ...project, stages: JSON.stringify(sop.stages) }).hset(this.keys.projects, id, project.project_name);
    sop.steps.forEach(({ rules, output_template, ...step }, position) => {
      multi.hset(this.keys.steps(id), step.identifier, JSON.stringify({ ...step, position }));
      multi.hset(this.keys.rules(id), step.identifier, JSON.stringify(rules));
      multi.hset(this.keys.templates(id), step.identifier, output_template);
    });
    multi.sadd(this.keys.userProjects(input.owner_id), id);
    const tasks = initial.map((task, i) => this.tasks.queueAdd(multi, id, task, now, firstSequence + i));
    await multi.exec();
    return { project, steps: sop.steps, tasks };
  }

  /** Every project's id and name, by name. */
  async listProjects(): Promise<{ id: string; name: string }[]> {
    if (!(await this.redis.exists(this.keys.projectsBackfilled))) await this.#backfillProjectIndex();
    const names = await this.redis.hgetall(this.keys.projects);
    return Object.entries(names)
      .map(([id, name]) => ({ id, name }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /**
   * Projects made before the index was written with them are found once, by a scan of their
   * hashes (however many other keys the Redis holds), and added; running it twice adds nothing.
   */
  async #backfillProjectIndex(): Promise<void> {
    const base = this.keys.project('');
    const ids = (await scanKeys(this.redis, `${globEscape(base)}*`)).map((key) => key.slice(base.length)).filter((id) => id.length > 0 && !id.includes(':'));
    if (ids.length > 0) {
      const pipeline = new KeyedPipeline(this.redis);
      for (const id of ids) pipeline.on(this.keys.project(id)).hget(this.keys.project(id), 'project_name');
      // A failed read must not pass for a project without a name: it would stay out of the index for good.
      const names = await pipeline.execOrThrow();
      const found = ids.flatMap((id, i) => (typeof names[i] === 'string' ? [id, names[i] as string] : []));
      if (found.length > 0) await this.redis.hset(this.keys.projects, ...found);
    }
    await this.redis.set(this.keys.projectsBackfilled, new Date().toISOString());
  }

  async getProject(projectId: string): Promise<Project | undefined> {
    const hash = await this.redis.hgetall(this.keys.project(projectId));
    return Object.keys(hash).length === 0 ? undefined : ProjectSchema.parse(hash);
  }

  /** The project's SOP steps in their defined order, with current rules and templates. */
  async steps(projectId: string): Promise<SopStep[]> {
    const [[, steps], [, rules], [, templates]] = (await this.redis.multi().hgetall(this.keys.steps(projectId)).hgetall(this.keys.rules(projectId)).hgetall(this.keys.templates(projectId)).exec()) as [
      [null, Record<string, string>],
      [null, Record<string, string>],
      [null, Record<string, string>],
    ];
    return Object.values(steps)
      .map((raw) => StoredStep.parse(JSON.parse(raw)))
      .sort((a, b) => a.position - b.position)
      .map(({ position: _position, ...step }) => ({
        ...step,
        rules: z.array(z.string()).parse(JSON.parse(rules[step.identifier] ?? '[]')),
        output_template: templates[step.identifier] ?? '',
      }));
  }

  async step(projectId: string, identifier: string): Promise<SopStep | undefined> {
    const [[, raw], [, rules], [, template]] = (await this.redis.multi().hget(this.keys.steps(projectId), identifier).hget(this.keys.rules(projectId), identifier).hget(this.keys.templates(projectId), identifier).exec()) as [
      [null, string | null],
      [null, string | null],
      [null, string | null],
    ];
    if (!raw) return undefined;
    const { position: _position, ...step } = StoredStep.parse(JSON.parse(raw));
    return { ...step, rules: z.array(z.string()).parse(JSON.parse(rules ?? '[]')), output_template: template ?? '' };
  }

  /** Replaces a step's rules; false when the project has no such step. */
  async updateRules(projectId: string, identifier: string, rules: string[]): Promise<boolean> {
    return (await this.redis.eval(UPDATE_STEP_SCRIPT, 2, this.keys.steps(projectId), this.keys.rules(projectId), identifier, JSON.stringify(rules))) === 1;
  }

  /** Replaces a step's output template; false when the project has no such step. */
  async updateTemplate(projectId: string, identifier: string, template: string): Promise<boolean> {
    return (await this.redis.eval(UPDATE_STEP_SCRIPT, 2, this.keys.steps(projectId), this.keys.templates(projectId), identifier, template)) === 1;
  }
}
