import type { Response } from 'express';
import type { AfterAnswer, AfterAnswerKind } from '../after-answer';
import { writeDataAnswer } from '../hot-path';

/**
 * Answers `{ data: { success: true } }`, then starts `work` (docs/decisions.md, "Mail requests
 * answer first"). Waits for a slot first when too many jobs are running, whatever the account.
 */
export async function answerSuccessThen(afterAnswer: AfterAnswer, res: Response, kind: AfterAnswerKind, work: () => Promise<void>): Promise<void> {
  await afterAnswer.slot();
  writeDataAnswer(res, { success: true });
  afterAnswer.run(kind, res.locals.requestId, work);
}
