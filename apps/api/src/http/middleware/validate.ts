import 'reflect-metadata';
import type { RequestHandler, Response } from 'express';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationError } from 'class-validator';
import { AuthError } from '@svc/core';
import { findForbiddenKey } from '../dto/plain-object';
import { unstorableTextProblem } from '../dto/storable-text';

export type DtoClass<T> = new () => T;

/**
 * Turns `input` into a validated instance of `Dto` or throws 400 validation_error naming the first
 * bad field. Unknown properties are dropped (whitelist), not refused, so a newer client's extra
 * field does not break it. Every request value is typed and checked here before it reaches core
 * or the ORM (docs/security.md).
 */
export async function validateInput<T extends object>(Dto: DtoClass<T>, input: unknown, what = 'The request body', options: { refuseUnknown?: boolean } = {}): Promise<T> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new AuthError('validation_error', `${what} must be a JSON object.`);
  }
  // Checked on the raw input: class-transformer would assign a "__proto__" key as a prototype.
  const forbidden = findForbiddenKey(input);
  if (forbidden) throw new AuthError('validation_error', forbidden);
  if (options.refuseUnknown) {
    const known = declaredProperties(Dto);
    const unknown = Object.keys(input).filter((name) => !known.has(name));
    if (unknown.length > 0) throw new AuthError('validation_error', `${what} has unknown parameter(s): ${unknown.join(', ')}.`);
  }
  const instance = plainToInstance(Dto, input, { exposeUnsetFields: false });
  // A DTO that declares nothing (NoQuery) has nothing to check, and class-validator refuses it.
  const errors = declaredProperties(Dto).size === 0 ? [] : await validate(instance, { whitelist: true, forbidNonWhitelisted: false });
  if (errors.length > 0) throw new AuthError('validation_error', firstMessage(errors));
  return instance;
}

/**
 * Per DTO class, computed on its first request. A class's checks are fixed once it and its parents
 * are defined (decorators run at definition), and class-validator's lookup walks every class with
 * checks, so it is not repeated per request.
 */
const declaredByClass = new WeakMap<DtoClass<object>, ReadonlySet<string>>();

/** The properties `Dto` (with its parents) declares a check for: what whitelisting keeps. */
function declaredProperties(Dto: DtoClass<object>): ReadonlySet<string> {
  let declared = declaredByClass.get(Dto);
  if (!declared) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(Dto, '', true, false);
    declared = new Set(metadata.map((entry) => entry.propertyName));
    declaredByClass.set(Dto, declared);
  }
  return declared;
}

/** Validates the JSON body into `Dto` and keeps it on `res.locals.body` (read it with {@link bodyOf}). */
export function validateBody<T extends object>(Dto: DtoClass<T>): RequestHandler {
  return async (req, res, next) => {
    res.locals.body = await validateInput(Dto, req.body ?? null);
    next();
  };
}

/**
 * As {@link validateBody}, for a body that may be left out altogether (a DELETE, or a POST whose
 * fields are all optional): no body counts as `{}`.
 */
export function validateOptionalBody<T extends object>(Dto: DtoClass<T>): RequestHandler {
  return async (req, res, next) => {
    res.locals.body = await validateInput(Dto, req.body ?? {});
    next();
  };
}

/**
 * Validates the query string into `Dto` and keeps it on `res.locals.query`. `%00` decodes to a
 * NUL, which no storage takes: refused first, as in bodies. With `refuseUnknown` (the admin
 * API's lists) a parameter the DTO does not name is a 400 naming it, so a misspelt filter
 * (`?emial=`) is not silently ignored into a list of everyone.
 */
export function validateQuery<T extends object>(Dto: DtoClass<T>, options: { refuseUnknown?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const unstorable = unstorableTextProblem(req.query, 'The query');
    if (unstorable) throw new AuthError('validation_error', unstorable);
    res.locals.query = await validateInput(Dto, { ...req.query }, 'The query', options);
    next();
  };
}

/** The body validated by {@link validateBody}; the class check catches a route wired without it. */
export function bodyOf<T>(res: Response, Dto: DtoClass<T>): T {
  return ofClass(res.locals.body, Dto);
}

/** The query validated by {@link validateQuery}. */
export function queryOf<T>(res: Response, Dto: DtoClass<T>): T {
  return ofClass(res.locals.query, Dto);
}

function ofClass<T>(value: unknown, Dto: DtoClass<T>): T {
  if (!(value instanceof Dto)) throw new AuthError('internal_error', undefined, { cause: new Error(`${Dto.name} was not validated`) });
  return value;
}

/**
 * One clear message: the first bad field, and of its failed checks the one written first in the
 * DTO. (TypeScript applies decorators bottom-up, so class-validator records the top one last;
 * `isDefined` always runs first.)
 */
function firstMessage(errors: ValidationError[], parent = ''): string {
  const error = errors[0];
  const path = parent ? `${parent}.${error.property}` : error.property;
  const messages = error.constraints ?? {};
  const message = messages.isDefined ?? Object.values(messages).at(-1);
  if (message) return message;
  if (error.children && error.children.length > 0) return firstMessage(error.children, path);
  return `${path} is not valid.`;
}
