import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../src/http/openapi';

// Reading the OpenAPI document the way its tests need: operations by server, the error codes each
// response names, and a validator of real responses against the documented schemas.

/** The operation keys of a path item this service uses. */
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;

type Json = Record<string, unknown>;

export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Json;
}

/** Operations of the API (`api`) or of the session proxy (paths marked `x-svc-server: proxy`). */
export function documentedOperations(doc: OpenApiDocument, server: 'api' | 'proxy'): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => {
    const onProxy = item['x-svc-server'] === 'proxy';
    if (onProxy !== (server === 'proxy')) return [];
    return HTTP_METHODS.filter((method) => item[method]).map((method) => ({ method: method.toUpperCase(), path, operation: item[method] as Json }));
  });
}

/** Follows a local `$ref` (`#/components/...`) to its target. */
function deref<T = Json>(doc: OpenApiDocument, value: unknown): T {
  let current = value as Json;
  while (current && typeof current.$ref === 'string') {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc as unknown as Json);
  }
  return current as T;
}

/** The `error` codes a response names: `enum`/`const` of `properties.error`, through `$ref`s and `allOf`. */
function errorCodesOf(doc: OpenApiDocument, response: unknown): string[] {
  const content = deref<{ content?: Record<string, { schema?: Json }> }>(doc, response).content;
  const schema = content?.['application/json']?.schema;
  const codes = new Set<string>();
  const visit = (node: Json | undefined): void => {
    if (!node) return;
    const error = (node.properties as Json | undefined)?.error as Json | undefined;
    for (const code of (error?.enum as string[] | undefined) ?? []) codes.add(code);
    if (typeof error?.const === 'string') codes.add(error.const);
    if (typeof node.$ref === 'string') visit(deref(doc, { $ref: node.$ref }));
    for (const part of (node.allOf as Json[] | undefined) ?? []) visit(part);
  };
  visit(schema);
  return [...codes];
}

/** Error codes by status of one operation. */
export function errorCodesByStatus(doc: OpenApiDocument, operation: Json): Record<string, string[]> {
  const responses = operation.responses as Json;
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, errorCodesOf(doc, response)]));
}

/** The documented operation that serves `method path` (a concrete path; literal segments win). */
function operationFor(doc: OpenApiDocument, method: string, path: string, server: 'api' | 'proxy' = 'api'): DocumentedOperation | undefined {
  const matches = documentedOperations(doc, server).filter((op) => {
    if (op.method !== method.toUpperCase()) return false;
    const pattern = op.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });
  return matches.sort((a, b) => b.path.replace(/\{[^}]+\}/g, '').length - a.path.replace(/\{[^}]+\}/g, '').length)[0];
}

/**
 * Validates real answers against the document with Ajv (JSON Schema 2020-12, formats checked).
 * Component schemas become `$defs` of one registered schema, so every `$ref` resolves the same
 * way for every response.
 */
export function responseValidator(doc: OpenApiDocument, server: 'api' | 'proxy' = 'api') {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const rewrite = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\//g, '"svc#/$defs/'));
  ajv.addSchema({ $id: 'svc', $defs: rewrite(doc.components.schemas) as Json });
  const compiled = new Map<string, ValidateFunction>();

  /** Problems of one answer (empty when it matches the document). */
  return (answer: { method: string; path: string; status: number; contentType: string | undefined; body: unknown }): string[] => {
    const found = operationFor(doc, answer.method, answer.path.split('?')[0], server);
    const where = `${answer.method} ${answer.path} -> ${answer.status}`;
    if (!found) return [`${where}: no documented operation`];
    const responses = found.operation.responses as Json;
    const response = responses[String(answer.status)];
    if (!response) return [`${where}: status not documented for ${found.method} ${found.path} (documented: ${Object.keys(responses).join(', ')})`];
    const content = deref<{ content?: Record<string, { schema?: Json }> }>(doc, response).content;
    // A HEAD answer has the GET's headers but never a body.
    if (answer.method.toUpperCase() === 'HEAD') return [];
    if (!content)
      return answer.body === '' || answer.body === undefined || (typeof answer.body === 'object' && Object.keys(answer.body as object).length === 0) ? [] : [`${where}: documented without a body`];
    const type = (answer.contentType ?? '').split(';')[0].trim();
    const media = content[type];
    if (!media) return [`${where}: content type ${type} not documented (${Object.keys(content).join(', ')})`];
    if (!media.schema || !type.includes('json')) return [];
    const key = `${found.method} ${found.path} ${answer.status} ${type}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(rewrite(media.schema) as Json);
      compiled.set(key, validate);
    }
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map((error) => `${where}: ${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`);
  };
}
