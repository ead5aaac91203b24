/**
 * Makes several stores' writes one: a change a use case makes and the audit entry (with its
 * webhook deliveries and mails) that records it commit together or not at all, so a crash or a
 * failed write between them can neither lose the record of a change nor record a change that did
 * not happen. A store that can (the SQL adapter: every store on one database) implements it with
 * one transaction that every store call inside `run` joins; without one, writes go one by one.
 */
export interface UnitOfWork {
  /**
   * Runs `work`; every store call it makes (awaited inside it) is part of one transaction,
   * committed when `work` resolves and rolled back when it rejects. A `run` inside a `run` joins
   * the outer one. Keep slow work (password hashing, network calls) outside: the transaction holds
   * locks (on SQLite, the whole database) while it is open.
   */
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Inside `run`: keeps `effect` until the work has committed, then runs it before `run`
   * resolves (nothing runs after a rollback), and answers true. Outside: answers false and keeps
   * nothing, so the caller runs the effect itself. For what others must not see before the commit
   * (a change notice, waking a worker).
   */
  afterCommit(effect: () => Promise<void> | void): boolean;
}
