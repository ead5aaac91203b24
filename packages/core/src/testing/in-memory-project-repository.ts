import type { Project, ProjectSettings } from '../domain/project';
import type { ProjectPage, ProjectRepository } from '../ports/project-repository';

/** An in-memory store holding rows of projects, which it drops when a project is deleted. */
export interface ProjectDependent {
  forgetProject(projectId: string): void;
}

/**
 * Reference ProjectRepository kept in process memory. Returns copies, never live objects.
 * `dependents` are the stores whose rows go with a deleted project, as a SQL cascade does.
 */
export class InMemoryProjectRepository implements ProjectRepository {
  private readonly projects = new Map<string, Project>();

  constructor(private readonly dependents: ProjectDependent[] = []) {}

  async create(project: Project): Promise<void> {
    if (this.projects.has(project.id)) throw new Error(`project ${project.id} already exists`);
    this.projects.set(project.id, structuredClone(project));
  }

  async findById(id: string): Promise<Project | null> {
    const project = this.projects.get(id);
    return project ? structuredClone(project) : null;
  }

  async update(id: string, settings: ProjectSettings, updatedAt: Date): Promise<Project | null> {
    const project = this.projects.get(id);
    if (!project) return null;
    const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
    const next = { ...project, ...structuredClone(defined), updatedAt };
    this.projects.set(id, next);
    return structuredClone(next);
  }

  async list(query: { search?: string; limit: number; cursor?: string }): Promise<ProjectPage> {
    const { search, limit, cursor } = query;
    const matching = [...this.projects.values()]
      .filter((p) => (search === undefined || p.name.toLowerCase().includes(search)) && (cursor === undefined || p.id > cursor))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const projects = matching.slice(0, limit).map((p) => structuredClone(p));
    return { projects, nextCursor: matching.length > limit ? projects[projects.length - 1].id : null };
  }

  /**
   * Forgets the project and makes its dependents forget their rows of it. Stores not given as
   * dependents keep theirs, unreachable: every key and token resolves through the project.
   */
  async delete(id: string): Promise<boolean> {
    if (!this.projects.delete(id)) return false;
    for (const dependent of this.dependents) dependent.forgetProject(id);
    return true;
  }

  async isEmpty(): Promise<boolean> {
    return this.projects.size === 0;
  }
}
