// Every answer the suite receives through the harness is checked against the OpenAPI document the
// service publishes: the status must be one the operation documents, and the body must match that
// status's schema. A mismatch throws, so the test that made the call fails.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Memoirist } from 'memoirist';
import { envelopeOf, EVENT_TYPES, type EventType } from '../../src/modules/webhooks/events';

type Media = { schema?: object };
type Operation = { responses?: Record<string, { content?: Record<string, Media> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components?: object };

export type ContractCheck = (answer: { method: string; path: string; status: number; contentType: string; body: unknown }) => void;

export class ContractError extends Error {}

/** A checker for the document at `${baseUrl}/openapi.json`, fetched once per service. */
export function contractChecker(baseUrl: string): () => Promise<ContractCheck> {
  let ready: Promise<ContractCheck> | undefined;
  return () => (ready ??= load(baseUrl));
}

async function load(baseUrl: string): Promise<ContractCheck> {
  const text = await (await fetch(`${baseUrl}/openapi.json`)).text();
  const key = Bun.hash(text);
  let check = checks.get(key);
  if (!check) checks.set(key, (check = checkerFor(JSON.parse(text) as Document)));
  return check;
}

// Every service of a run publishes the same document (it does not depend on the configuration):
// its schemas are compiled once per run, not once per test file
const checks = new Map<number | bigint, ContractCheck>();

function checkerFor(doc: Document): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  const router = new Memoirist<{ template: string; item: Record<string, Operation> }>();
  for (const [template, item] of Object.entries(doc.paths)) {
    router.add('GET', template.replace(/\{([^}]+)\}/g, ':$1'), { template, item });
  }
  const compiled = new Map<string, ValidateFunction>();

  return ({ method, path, status, contentType, body }) => {
    const found = router.find('GET', path) ?? router.find('GET', `/v1${path}`);
    const operation = found?.store.item[method.toLowerCase()];
    // pages, assets, share links and the browser client are not part of the API document
    if (!found || !operation) return;
    const where = `${method} ${found.store.template} answered ${status}`;
    const documented = operation.responses?.[String(status)];
    if (!documented) {
      throw new ContractError(`${where}, a status the document does not list (it lists ${Object.keys(operation.responses ?? {}).join(', ') || 'none'}); body: ${preview(body)}`);
    }
    const media = documented.content?.['application/json'];
    if (!media?.schema) return;
    if (!contentType.includes('application/json')) throw new ContractError(`${where} as ${contentType || 'no content type'}, documented as application/json`);
    const key = `${method} ${found.store.template} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      // refs point into the document's components: compile each schema with them beside it
      validate = ajv.compile({ ...media.schema, components: doc.components });
      compiled.set(key, validate);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
      throw new ContractError(`${where} with a body that breaks its documented schema: ${problems}; body: ${preview(body)}`);
    }
  };
}

const preview = (body: unknown) => JSON.stringify(body)?.slice(0, 400);

// ---- outbound events: every envelope a receiver gets and every outbox row a test reads is checked
// against the event schemas the document's `webhooks` section is built from

const envelopeChecks = new Map(EVENT_TYPES.map((type) => [type, TypeCompiler.Compile(envelopeOf(type))]));
const violations: string[] = [];

/** Records a problem if `envelope` (a delivered body) breaks the schema of its event type. */
export function checkEnvelope(envelope: unknown): void {
  const type = (envelope as { event?: unknown } | null)?.event;
  const check = typeof type === 'string' ? envelopeChecks.get(type as EventType) : undefined;
  if (!check) {
    violations.push(`a delivery of unknown event type ${JSON.stringify(type)}: ${preview(envelope)}`);
  } else if (!check.Check(envelope)) {
    const problems = [...check.Errors(envelope)].map((e) => `${e.path || '(body)'} ${e.message}`).join('; ');
    violations.push(`${type} breaks its documented schema: ${problems}; body: ${preview(envelope)}`);
  }
}

/** The same for an outbox row (its data, wrapped as it will be sent). */
export function checkOutboxRow(row: { id: string; type: string; data: unknown; created?: string }): void {
  checkEnvelope({ id: row.id, event: row.type, created: row.created ?? new Date().toISOString(), data: row.data });
}

/** The problems recorded since the last call (the preload's afterEach fails the test on any). */
export function takeViolations(): string[] {
  return violations.splice(0);
}
