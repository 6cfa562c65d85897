/**
 * Validates responses against the Hindsight 0.9.1 OpenAPI document in `fixtures/`.
 * Component schemas are loaded into ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) under one
 * id, so `#/components/schemas/X` references resolve inside it; a response is checked
 * against the schema its operation declares for that status. Error statuses the document
 * does not declare (400, 401, 404, 409, 410) must still be FastAPI's `{"detail": ...}`.
 * `createChecker(file, {strict: true})` also refuses keys a schema does not declare
 * (`additionalProperties: false` on every object that lists its properties), as the strict
 * clients (the official Go client) do; a 3.0-style `nullable: true` is read as "or null".
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';

// ajv-formats is CommonJS (`exports.default = plugin`); how the callable surfaces depends on the loader.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formatsModule = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

interface Operation {
  readonly responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface Spec {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, unknown> };
}

export const specPath = fileURLToPath(new URL('../../../fixtures/hindsight/openapi.json', import.meta.url));
export const spec0_10Path = fileURLToPath(new URL('../../../fixtures/hindsight/openapi-0.10.json', import.meta.url));

const ERROR_BODY = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { anyOf: [{ type: 'string' }, { type: 'array' }, { type: 'object' }] } },
};

interface Template {
  readonly template: string;
  readonly regex: RegExp;
  readonly staticSegments: number;
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** Rewrites a schema tree: `nullable` -> anyOf null; strict -> closed objects. */
const normalise = (node: unknown, strict: boolean): unknown => {
  if (Array.isArray(node)) return node.map((n) => normalise(n, strict));
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // `properties` maps names to schemas: recurse into each, but the map itself is not a schema.
    out[key] = key === 'properties' && isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, strict)])) : key === 'example' ? value : normalise(value, strict);
  }
  if (strict && isObject(out['properties']) && out['additionalProperties'] === undefined) out['additionalProperties'] = false;
  if (out['nullable'] === true) {
    delete out['nullable'];
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
};

export interface Checker {
  readonly spec: Spec;
  /** The OpenAPI path template a concrete path falls under, or undefined. */
  templateOf(method: string, path: string): string | undefined;
  /** Undefined when the response conforms; otherwise what is wrong, naming the fields. */
  checkResponse(method: string, path: string, status: number, body: unknown): string | undefined;
}

let checkers = 0;

export const createChecker = (file: string, options: { strict?: boolean } = {}): Checker => {
  const strict = options.strict ?? false;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Spec;
  const specId = `hindsight-openapi-${(checkers += 1)}`;
  const components = normalise(raw.components, strict) as Spec['components'];
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: specId, components });
  const validateError = ajv.compile(ERROR_BODY);

  const templates: Template[] = Object.keys(raw.paths)
    .map((template) => {
      const source = template
        .split('/')
        .map((segment) => {
          const m = /^\{([a-z_]+)\}$/.exec(segment);
          if (m === null) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          // document ids may contain "/" (a greedy path converter upstream).
          return m[1] === 'document_id' ? '.+' : '[^/]+';
        })
        .join('/');
      return { template, regex: new RegExp(`^${source}$`), staticSegments: template.split('/').filter((s) => !s.startsWith('{')).length };
    })
    // Static segments win, as they do in the server's route table.
    .sort((a, b) => b.staticSegments - a.staticSegments);

  const templateOf = (method: string, path: string): string | undefined => {
    const bare = path.split('?')[0] ?? path;
    return templates.find((t) => t.regex.test(bare) && raw.paths[t.template]?.[method.toLowerCase()] !== undefined)?.template;
  };

  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (schema: unknown): ValidateFunction => {
    const key = JSON.stringify(schema);
    let fn = compiled.get(key);
    if (fn === undefined) {
      // Re-root the schema inside the spec document so its internal $refs resolve.
      const rerooted = normalise(JSON.parse(key.replaceAll('"#/components/', `"${specId}#/components/`)), strict) as object;
      fn = ajv.compile(rerooted);
      compiled.set(key, fn);
    }
    return fn;
  };

  const checkResponse = (method: string, path: string, status: number, body: unknown): string | undefined => {
    const template = templateOf(method, path);
    if (template === undefined) return `${method} ${path}: no operation in the OpenAPI document`;
    const operation = raw.paths[template]?.[method.toLowerCase()];
    const declared = operation?.responses?.[String(status)];
    if (declared === undefined) {
      if (status >= 400) {
        return validateError(body) ? undefined : `${method} ${template} ${status}: error body is not {"detail": ...}: ${ajv.errorsText(validateError.errors)}`;
      }
      return `${method} ${template}: status ${status} is not declared (declared: ${Object.keys(operation?.responses ?? {}).join(', ')})`;
    }
    const schema = declared.content?.['application/json']?.schema;
    if (schema === undefined) return undefined;
    const validate = validatorFor(schema);
    if (validate(body)) return undefined;
    return `${method} ${template} ${status}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  };

  return { spec: raw, templateOf, checkResponse };
};

const lenient = createChecker(specPath);
export const spec = lenient.spec;
export const templateOf = lenient.templateOf;
export const checkResponse = lenient.checkResponse;
