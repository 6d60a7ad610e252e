import { keyspace } from '@switchyard/redis';

/**
 * Where the Supervisor keeps each thing in Redis, all under `{sy:supervisor}`: one Redis Cluster
 * slot, since its scripts join keys across entities (a task group's start reads and sets its
 * project's in-progress pointer and may switch to another PENDING group; creating a user claims
 * the username and the token together), and tasks and phases are looked up by their own ids.
 * Tagging per project would need every task and phase id to name its project; the Supervisor's
 * traffic (people and agents calling tools) is far below what one slot serves.
 */
export function supervisorKeys(prefix: string) {
  const base = keyspace(prefix).group('supervisor');
  return {
    base,
    /** Hash: user_id, username, created_at. */
    user: (userId: string) => `${base}:user:${userId}`,
    /** Set of the user's project ids. */
    userProjects: (userId: string) => `${base}:user:${userId}:projects`,
    /** String: the user id owning a username. */
    username: (username: string) => `${base}:username:${username}`,
    /** String: the user id of an API token, keyed by the token's sha256. */
    token: (tokenHash: string) => `${base}:token:${tokenHash}`,
    /** Hash: project_id, project_name, description, owner_id, created_at, stages (JSON). */
    project: (projectId: string) => `${base}:project:${projectId}`,
    /** Hash: project_id → project_name of every project, written with the project (the list agents pick from). */
    projects: `${base}:projects`,
    /** String: set once the projects made before `projects` existed have been added to it. */
    projectsBackfilled: `${base}:projects:backfilled`,
    /** Hash: step identifier → the step's JSON without its rules and template. */
    steps: (projectId: string) => `${base}:project:${projectId}:steps`,
    /** Hash: step identifier → JSON array of rules. */
    rules: (projectId: string) => `${base}:project:${projectId}:rules`,
    /** Hash: step identifier → output template. */
    templates: (projectId: string) => `${base}:project:${projectId}:templates`,
    /** Sorted set: task ids by creation order. */
    tasks: (projectId: string) => `${base}:project:${projectId}:tasks`,
    /** String: the id of the project's one IN_PROGRESS task group, absent when none is. */
    inProgress: (projectId: string) => `${base}:project:${projectId}:in_progress`,
    /** Hash: a task group (TaskGroupSchema). */
    task: (taskId: string) => `${base}:task:${taskId}`,
    /** List: the task group's phase ids in order. */
    taskPhases: (taskId: string) => `${base}:task:${taskId}:phases`,
    /** Hash: a phase (PhaseSchema). */
    phase: (phaseId: string) => `${base}:phase:${phaseId}`,
    /** Counter giving task groups their creation order. */
    sequence: `${base}:sequence`,
  };
}

export type SupervisorKeys = ReturnType<typeof supervisorKeys>;
