import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';
import { MAX_STATS_DAYS, statsDaysProblem } from '@svc/core';

/** Query of GET /admin/projects/{id}/environments/{env}/stats; the bound is core's. */
export class StatsQuery {
  @IsOptional()
  @Type(() => Number)
  @ValidateBy({ name: 'statsDays', validator: { validate: (value: unknown) => statsDaysProblem(value) === null } }, { message: `days must be an integer from 1 to ${MAX_STATS_DAYS}.` })
  days?: number;
}
