import type { UnitOfWork } from '../ports/unit-of-work';

/**
 * Runs `work` as one unit of work when the service has one (see UnitOfWork), as it is otherwise.
 * Use cases put the writes of a change and the events that record it inside.
 */
export function atomically<T>(deps: { unitOfWork?: UnitOfWork }, work: () => Promise<T>): Promise<T> {
  return deps.unitOfWork ? deps.unitOfWork.run(work) : work();
}

/** Runs `effect` once the current unit of work (if any) has committed; at once otherwise. */
export async function afterCommit(deps: { unitOfWork?: UnitOfWork }, effect: () => Promise<void> | void): Promise<void> {
  if (!deps.unitOfWork?.afterCommit(effect)) await effect();
}
