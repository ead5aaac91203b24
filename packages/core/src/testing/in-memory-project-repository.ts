import type { Project, ProjectSettings } from '../domain/project';
import type { ProjectRepository } from '../ports/project-repository';

/** Reference ProjectRepository kept in process memory. Returns copies, never live objects. */
export class InMemoryProjectRepository implements ProjectRepository {
  private readonly projects = new Map<string, Project>();

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

  async isEmpty(): Promise<boolean> {
    return this.projects.size === 0;
  }
}
