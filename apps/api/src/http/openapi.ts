import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Yaml from 'yaml';

/**
 * The OpenAPI document, kept as a file beside the sources, not in the handlers. It
 * ships in the image next to `src/`; openapi-drift.test.ts holds it to the mounted routes.
 * The package runs from one bundle in `dist/`, the sources from `src/http/`: one or two folders
 * below the package's root, where `openapi/` is.
 */
const CANDIDATES = [join(__dirname, '..', 'openapi', 'openapi.yaml'), join(__dirname, '..', '..', 'openapi', 'openapi.yaml')];
export const OPENAPI_FILE = CANDIDATES.find((file) => existsSync(file)) ?? CANDIDATES[0];

/** The parts of an OpenAPI 3.1 document this service reads; the rest is passed through. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

let cached: { document: OpenApiDocument; json: string } | undefined;

/** Parses the document once per process (it does not change while the process runs). */
export function loadOpenApiDocument(): OpenApiDocument {
  return loaded().document;
}

/** The document as the JSON text GET /api/openapi.json serves. */
export function openApiJson(): string {
  return loaded().json;
}

function loaded(): { document: OpenApiDocument; json: string } {
  if (!cached) {
    // The YAML parser is required with the first request for the document, not at start.
    const { parse } = require('yaml') as typeof Yaml;
    const document = parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
    cached = { document, json: JSON.stringify(document) };
  }
  return cached;
}
