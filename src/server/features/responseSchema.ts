/**
 * The shape check upstream applies to a `response_schema` (reflect and triggers): an object
 * schema with non-empty `properties`, each property an object with a supported `type`, and
 * `required` naming only known properties. A schema that passes is still refused by the
 * embedded server (no LLM to fill it), but with a capability error, not a validation one.
 */
import { isRecord } from '../../codecs/codecs.js';

const SUPPORTED_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

const typeSupported = (type: unknown): boolean =>
  typeof type === 'string' ? SUPPORTED_TYPES.has(type) : Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string' && SUPPORTED_TYPES.has(t));

/** `undefined` when the schema is acceptable, else the problem in words. */
export const responseSchemaProblem = (schema: Record<string, unknown>): string | undefined => {
  if (schema['type'] !== undefined && schema['type'] !== 'object') return "response_schema must have type 'object'";
  const properties = schema['properties'];
  if (!isRecord(properties) || Object.keys(properties).length === 0) return 'response_schema must define a non-empty properties object';
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property)) return `response_schema property '${name}' must be an object`;
    const hasComposite = ['anyOf', 'oneOf', 'allOf', '$ref', 'enum'].some((k) => property[k] !== undefined);
    if (!hasComposite && !typeSupported(property['type'])) return `response_schema property '${name}' has an unsupported or missing type`;
  }
  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required)) return 'response_schema required must be a list of property names';
    const unknown = required.filter((r) => typeof r !== 'string' || !(r in properties));
    if (unknown.length > 0) return `response_schema required lists unknown properties: ${unknown.map(String).join(', ')}`;
  }
  return undefined;
};
