import type { Project, ProjectSettings } from '../domain/project';

export interface ProjectRepository {
  /** Stores a new project. Ids are unique; a duplicate id is a programming error and throws. */
  create(project: Project): Promise<void>;
  /** The project with this id, or null. */
  findById(id: string): Promise<Project | null>;
  /** Applies the given settings (undefined fields untouched) and returns the updated project, or null if unknown. */
  update(id: string, settings: ProjectSettings, updatedAt: Date): Promise<Project | null>;
  /** True while no project is stored at all (a new database, before its first project). */
  isEmpty(): Promise<boolean>;
}
