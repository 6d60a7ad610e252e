/**
 * Who a bridge session is logged in as, and the one project and workspace it works in. The state
 * lives in the bridge's per-session store; it is parsed on every read, so a value that is not
 * ours reads as logged out.
 */
import { z } from 'zod';
import { SupervisorError, type Project } from './domain.js';
import type { SupervisorStore } from './store.js';

/** Per-session storage (the tool suite's SessionState fits). */
export interface SessionStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

const SESSION_KEY = 'supervisor';

const SessionSchema = z.object({
  user_id: z.string(),
  username: z.string(),
  project_id: z.string().optional(),
  /** Absolute, inside the workspace root. */
  workspace: z.string().optional(),
});
export type SupervisorSession = z.infer<typeof SessionSchema>;

export async function readSession(store: SessionStore): Promise<SupervisorSession | undefined> {
  const parsed = SessionSchema.safeParse(await store.get(SESSION_KEY));
  return parsed.success ? parsed.data : undefined;
}

export const writeSession = (store: SessionStore, session: SupervisorSession) => store.set(SESSION_KEY, SessionSchema.parse(session));
export const clearSession = (store: SessionStore) => store.delete(SESSION_KEY);

export const notLoggedIn = () => new SupervisorError('AUTH_001', '请先登录');

/** The logged-in session; AUTH_001 otherwise. */
export async function requireLogin(store: SessionStore): Promise<SupervisorSession> {
  const session = await readSession(store);
  if (!session) throw notLoggedIn();
  return session;
}

export interface ProjectSession extends SupervisorSession {
  project_id: string;
  workspace: string;
  project: Project;
}

/** The logged-in session with its project, checked to exist and to be the user's. */
export async function requireProject(store: SessionStore, supervisor: SupervisorStore): Promise<ProjectSession> {
  const session = await requireLogin(store);
  if (!session.project_id || !session.workspace) throw new SupervisorError('NO_PROJECT_CONTEXT', 'No project context');
  const project = await ownedProject(supervisor, session.user_id, session.project_id);
  return { ...session, project_id: session.project_id, workspace: session.workspace, project };
}

/** The project, when it exists (NOT_FOUND) and belongs to the user (PERMISSION_DENIED). */
export async function ownedProject(supervisor: SupervisorStore, userId: string, projectId: string): Promise<Project> {
  const project = await supervisor.getProject(projectId);
  if (!project) throw new SupervisorError('NOT_FOUND', `资源不存在：项目 ${projectId}`);
  if (project.owner_id !== userId) throw new SupervisorError('PERMISSION_DENIED', '无权限执行此操作：该项目属于其他用户');
  return project;
}
