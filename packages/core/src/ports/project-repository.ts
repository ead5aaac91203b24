import type { Project, ProjectSettings } from '../domain/project';

export interface ProjectPage {
  projects: Project[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface ProjectRepository {
  /** Stores a new project. Ids are unique; a duplicate id is a programming error and throws. */
  create(project: Project): Promise<void>;
  /** The project with this id, or null. */
  findById(id: string): Promise<Project | null>;
  /** Applies the given settings (undefined fields untouched) and returns the updated project, or null if unknown. */
  update(id: string, settings: ProjectSettings, updatedAt: Date): Promise<Project | null>;
  /**
   * Projects ordered by id after `cursor` (keyset paging), `limit` per page; with `search`
   * (already lower-cased), only those whose lower-cased name contains it (`%`, `_` and `\` are
   * literal characters).
   */
  list(query: { search?: string; limit: number; cursor?: string }): Promise<ProjectPage>;
  /**
   * Deletes the project and everything stored under it (keys, users, sessions, signing keys,
   * mails, providers, clients) in one step. False when there was no such project.
   */
  delete(id: string): Promise<boolean>;
  /** True while no project is stored at all (a new database, before its first project). */
  isEmpty(): Promise<boolean>;
}
