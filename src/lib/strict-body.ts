// Unknown fields are refused, on every JSON route, with a 400 naming them (as Stripe does): a typo
// such as `holdbakDays` must not answer 200 and change nothing. One place does it for every route
// (src/app.ts): strictSchema() marks each object of a route's body schema `additionalProperties:
// false` (so the OpenAPI document says so too) and unknownFields() finds what a body carries beyond
// them, before Elysia's normaliser would drop it silently. Free-form values (`metadata`, declared
// `t.Unknown`) and records (`t.Record`, pattern properties) stay open.
import type { TSchema } from '@sinclair/typebox';
import { invalidFields, UNKNOWN_FIELD, type FieldProblem } from './errors';

type SchemaNode = {
  type?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: unknown;
  additionalProperties?: unknown;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
};

/** Marks every object of `schema` closed unless it says otherwise (in place; answers the schema). */
export function strictSchema<T extends TSchema>(schema: T): T {
  const stack: SchemaNode[] = [schema as SchemaNode];
  const seen = new Set<SchemaNode>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.type === 'object' && node.properties && !node.patternProperties && !('additionalProperties' in node)) node.additionalProperties = false;
    stack.push(...Object.values(node.properties ?? {}), ...(node.items ? [node.items] : []), ...(node.anyOf ?? []), ...(node.allOf ?? []));
  }
  return schema;
}

/** The fields of `value` that its closed objects do not declare, as dotted paths. */
export function unknownFields(schema: TSchema, value: unknown): string[] {
  const found: string[] = [];
  const stack: [SchemaNode, unknown, string][] = [[schema as SchemaNode, value, '']];
  while (stack.length > 0) {
    const [node, item, path] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
    if (Array.isArray(item)) {
      if (node.items) item.forEach((inner, i) => stack.push([node.items!, inner, at(i)]));
      continue;
    }
    // an optional or nullable object: the one object among the union's members
    const objects = (node.anyOf ?? []).filter((s) => s.type === 'object');
    if (objects.length === 1) stack.push([objects[0]!, item, path]);
    if (node.type !== 'object' || !node.properties) continue;
    for (const [key, inner] of Object.entries(item)) {
      const declared = Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
      if (declared) stack.push([declared, inner, at(key)]);
      else if (node.additionalProperties === false) found.push(at(key));
    }
  }
  return found.sort();
}

type RouteLike = { method: string; path: string; hooks?: { body?: unknown } };

/**
 * The unknown-field check of a set of JSON routes (each also served under `/v1`): their body
 * schemas closed, and a check for a transform hook, which sees the body before Elysia's
 * normaliser drops what the schema does not declare. Like Elysia's own validation, it runs before
 * the route's auth.
 */
export function strictBodies(routes: RouteLike[]): (method: string, route: string, body: unknown) => void {
  const schemas = new Map<string, TSchema>();
  for (const route of routes) {
    const body = route.hooks?.body;
    if (!body || typeof body !== 'object') continue;
    const schema = strictSchema(body as TSchema);
    schemas.set(`${route.method} ${route.path}`, schema);
    schemas.set(`${route.method} /v1${route.path}`, schema);
  }
  return (method, route, body) => {
    const schema = schemas.get(`${method} ${route}`);
    const fields = schema ? unknownFields(schema, body) : [];
    if (fields.length > 0) throw invalidFields(fields.map((field): FieldProblem => ({ field, message: UNKNOWN_FIELD })));
  };
}
