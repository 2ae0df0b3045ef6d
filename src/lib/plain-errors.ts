// Schema problems said in people's words: "at most 200 characters", not TypeBox's "Expected string
// length less or equal to 200". Used where a value is checked against a schema by hand (settings'
// question lists) and by the pages, so raw validator text never reaches a person.
import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import type { FieldProblem } from './errors';

type SchemaLike = {
  type?: string | string[];
  anyOf?: SchemaLike[];
  const?: unknown;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxItems?: number;
  minItems?: number;
  format?: string;
  pattern?: string;
  description?: string;
};

/** One value against one schema: what is wrong, in words. */
export function plainProblem(schema: SchemaLike, value: unknown): string {
  if (value === undefined) return 'required';
  const options = (schema.anyOf ?? []).filter((s) => s.const !== undefined).map((s) => s.const);
  const allowed = options.length > 0 ? options : schema.enum;
  if (allowed && allowed.length > 0) return `must be one of ${allowed.map((o) => JSON.stringify(o)).join(', ')}`;
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      if (schema.minLength !== undefined && value.length < schema.minLength) return schema.minLength <= 1 ? 'required' : `at least ${schema.minLength} characters`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `at most ${schema.maxLength} characters`;
      if (schema.format === 'email') return 'must be an email address';
      if (schema.pattern === '\\S') return 'required';
      return 'not in the expected form';
    }
    case 'integer':
    case 'number': {
      const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
      const min = schema.minimum ?? schema.exclusiveMinimum;
      if (min !== undefined && schema.maximum !== undefined) return `must be ${kind} from ${min} to ${schema.maximum}`;
      if (min !== undefined) return `must be ${kind} of at least ${min}`;
      if (schema.maximum !== undefined) return `must be ${kind} of at most ${schema.maximum}`;
      return `must be ${kind}`;
    }
    case 'boolean':
      return 'must be true or false';
    case 'array':
      if (!Array.isArray(value)) return 'must be a list';
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return `at most ${schema.maxItems} items`;
      if (schema.minItems !== undefined && value.length < schema.minItems) return `at least ${schema.minItems} items`;
      return 'not a valid list';
    case 'object':
      return 'must be an object';
    default:
      return 'not a valid value';
  }
}

/** One schema error (TypeBox's, as Elysia reports them too), in words. */
export function plainMessage(e: { type?: number; schema?: unknown; value?: unknown }): string {
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return 'is not a known field';
  if (!e.schema || typeof e.schema !== 'object') return 'not a valid value';
  return plainProblem(e.schema as SchemaLike, e.value);
}

/** Every problem of `value` against `schema`, one per field (`field.0.key`), in words. */
export function plainProblems(schema: TSchema, value: unknown, field: string): FieldProblem[] {
  const seen = new Map<string, string>();
  for (const e of Value.Errors(schema, value)) {
    const path = e.path.replace(/^\//, '').replace(/\//g, '.');
    const name = path === '' ? field : `${field}.${path}`;
    if (seen.has(name)) continue;
    seen.set(name, plainMessage(e));
  }
  return [...seen].map(([f, message]) => ({ field: f, message }));
}
