// The Partnerd server SDK: typed, fetch-based, no dependencies. For the operator's backend only
// (it carries a secret API key): import { Partnerd } from 'partnerd/sdk'.
import type { paths } from './openapi';


export type PartnerdOptions = {
  /** Address of the service, e.g. https://partners.example.com */
  baseUrl: string;
  /** A secret key: the admin key or a scoped `sk_` key with the scopes the calls need. */
  apiKey: string;
  /** Per-request time limit in milliseconds (default 10000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
};

/** Every failed call throws this: `status` is the HTTP status (0 without an answer), `detail` the whole response body. */
export class PartnerdError extends Error {
  override readonly name = 'PartnerdError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail: unknown,
  ) {
    super(message);
  }
}

// Every request and answer type comes from the contract: openapi.d.ts is generated from the
// service's route schemas (`bun run openapi`), so a renamed field breaks the SDK's build, not its users.

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
/** The JSON body an operation takes. */
type Body<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The JSON answer an operation gives with `status`. */
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = Operation<P, M> extends { responses: infer R }
  ? S extends keyof R
    ? Json<R[S]>
    : never
  : never;
/** The query parameters an operation takes, as the SDK passes them (numbers allowed). */
type QueryOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { parameters: { query?: infer Q } }
  ? { [K in keyof NonNullable<Q>]?: NonNullable<Q>[K] | number }
  : never;

export type Metadata = Record<string, unknown>;

/** The event of POST /v1/events; `occurredAt` may also be given as a Date. */
export type EventInput = Omit<Body<'/v1/events', 'post'>, 'occurredAt'> & { occurredAt?: string | Date };
export type Event = Answer<'/v1/events', 'post', 201>;
export type EventList = Answer<'/v1/events', 'get', 200>;
/** One event of events.batch: an EventInput plus its own idempotencyKey. */
export type BatchEventInput = EventInput & { idempotencyKey?: string };
/** The answer of events.batch: one result per event, in order: the event, or `{error}` for that event alone. */
export type BatchResults = Answer<'/v1/events/batch', 'post', 200>;
export type BatchResult = BatchResults['results'][number];

/** The event of POST /attribution/events: `value` in MAJOR units (19.99 = $19.99). */
export type TrackInput = Omit<Body<'/v1/attribution/events', 'post'>, 'occurredAt'> & { occurredAt?: string | Date };
export type AttributionResult = Answer<'/v1/attribution/events', 'post', 201>;
export type AttributionStatus = AttributionResult['attribution']['status'];

export type PartnerInput = Body<'/v1/partners', 'post'>;
export type CreatedPartner = Answer<'/v1/partners', 'post', 201>;
export type PartnerList = Answer<'/v1/partners', 'get', 200>;
export type PartnerListItem = PartnerList['partners'][number];
export type Partner = Answer<'/v1/partners/{id}', 'get', 200>;
export type PartnerUpdate = Body<'/v1/partners/{id}', 'patch'>;
export type InviteSent = Answer<'/v1/partners/{id}/invite', 'post', 200>;
export type Rule = NonNullable<PartnerInput['commissionSnapshot']>['rules'][number];

export type LinkInput = Body<'/v1/links', 'post'>;
export type Link = Answer<'/v1/links', 'post', 201>;

export type CodeInput = Body<'/v1/codes', 'post'>;
export type PromotionCode = Answer<'/v1/codes', 'post', 201>;
export type CodeList = Answer<'/v1/codes', 'get', 200>;
export type CodeQuery = QueryOf<'/v1/codes', 'get'>;

export type GroupInput = Body<'/v1/groups', 'post'>;
export type Group = Answer<'/v1/groups', 'post', 201>;
export type GroupList = Answer<'/v1/groups', 'get', 200>;
export type GroupUpdate = Body<'/v1/groups/{id}', 'patch'>;
export type RulePreviewInput = Body<'/v1/campaigns/{id}/preview', 'post'>;
export type RulePreview = Answer<'/v1/campaigns/{id}/preview', 'post', 200>;

export type Commission = Answer<'/v1/commissions/{id}', 'get', 200>;
export type CommissionList = Answer<'/v1/commissions', 'get', 200>;
export type CommissionHistory = Answer<'/v1/commissions/{id}/history', 'get', 200>;
export type CommissionQuery = QueryOf<'/v1/commissions', 'get'>;

export type Page = { limit?: number; cursor?: string };

export type RequestOptions = {
  /** Sent as the Idempotency-Key header: a retried call with the same key records nothing twice. */
  idempotencyKey?: string;
};

type Query = Record<string, string | number | undefined>;

export class Partnerd {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: PartnerdOptions) {
    if (!options?.baseUrl) throw new TypeError('Partnerd: baseUrl is required');
    if (!options.apiKey) throw new TypeError('Partnerd: apiKey is required');
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  readonly events = {
    /** Records a conversion event (amount in minor units). A repeated idempotencyKey answers the original event. */
    create: (input: EventInput, options: RequestOptions = {}) => this.#request<Event>('POST', '/v1/events', { body: withTime(input), ...options }),
    list: (page: Page = {}) => this.#request<EventList>('GET', '/v1/events', { query: page }),
    /**
     * Records 1-1,000 events in one call (backfills, migrations). One bad event does not fail the
     * call: its result is `{error: {code, message, details}}`; check each result.
     */
    batch: (events: BatchEventInput[]) =>
      this.#request<BatchResults>('POST', '/v1/events/batch', { body: { events: events.map((e) => withTime(e)) } }),
  };

  readonly attribution = {
    /** Records a conversion event (value in major units) and answers who it was attributed to. */
    track: (input: TrackInput, options: RequestOptions = {}) =>
      this.#request<AttributionResult>('POST', '/attribution/events', { body: withTime(input), ...options }),
  };

  readonly partners = {
    create: (input: PartnerInput) => this.#request<CreatedPartner>('POST', '/v1/partners', { body: input }),
    list: (params: QueryOf<'/v1/partners', 'get'> = {}) => this.#request<PartnerList>('GET', '/v1/partners', { query: params }),
    get: (id: string) => this.#request<Partner>('GET', `/v1/partners/${encodeURIComponent(id)}`),
    update: (id: string, input: PartnerUpdate) => this.#request<Partner>('PATCH', `/v1/partners/${encodeURIComponent(id)}`, { body: input }),
    revoke: (id: string, input: { reason?: string } = {}) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/revoke`, { body: input }),
    reinstate: (id: string) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/reinstate`),
    /** Sends a fresh magic-link invite (admin key). */
    invite: (id: string) => this.#request<InviteSent>('POST', `/v1/partners/${encodeURIComponent(id)}/invite`),
    /** Approves an application (status applied): the invite is mailed, the partner becomes pending. */
    approve: (id: string) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/approve`),
    /** Declines an application with a reason, which is mailed to the applicant. */
    decline: (id: string, input: { reason: string }) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/decline`, { body: input }),
  };

  readonly links = {
    create: (input: LinkInput) => this.#request<Link>('POST', '/v1/links', { body: input }),
  };

  /** Promotion codes: customers type them at checkout; pass them as `couponCode` on events. */
  readonly codes = {
    create: (input: CodeInput) => this.#request<PromotionCode>('POST', '/v1/codes', { body: input }),
    list: (params: CodeQuery = {}) => this.#request<CodeList>('GET', '/v1/codes', { query: params }),
    get: (id: string) => this.#request<PromotionCode>('GET', `/v1/codes/${encodeURIComponent(id)}`),
    archive: (id: string, archived = true) => this.#request<PromotionCode>('PATCH', `/v1/codes/${encodeURIComponent(id)}`, { body: { archived } }),
  };

  /** Partner groups: rules that win over a campaign's for their members (a snapshot still wins over them). */
  readonly groups = {
    create: (input: GroupInput) => this.#request<Group>('POST', '/v1/groups', { body: input }),
    list: (params: { limit?: string; cursor?: string } = {}) => this.#request<GroupList>('GET', '/v1/groups', { query: params }),
    get: (id: string) => this.#request<Group>('GET', `/v1/groups/${encodeURIComponent(id)}`),
    update: (id: string, input: GroupUpdate) => this.#request<Group>('PATCH', `/v1/groups/${encodeURIComponent(id)}`, { body: input }),
  };

  readonly campaigns = {
    /** What draft rules would have paid on the campaign's last `days` of events, next to what they paid; writes nothing. */
    preview: (id: string, input: RulePreviewInput) => this.#request<RulePreview>('POST', `/v1/campaigns/${encodeURIComponent(id)}/preview`, { body: input }),
  };

  readonly commissions = {
    list: (params: CommissionQuery = {}) => this.#request<CommissionList>('GET', '/v1/commissions', { query: params }),
    get: (id: string) => this.#request<Commission>('GET', `/v1/commissions/${encodeURIComponent(id)}`),
    /** Status moves and amount changes (partial refunds), oldest first. */
    history: (id: string) => this.#request<CommissionHistory>('GET', `/v1/commissions/${encodeURIComponent(id)}/history`),
  };

  async #request<T>(method: string, path: string, options: { body?: unknown; query?: Query } & RequestOptions = {}): Promise<T> {
    const url = new URL(this.#baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const timeout = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new PartnerdError(0, timeout ? 'timeout' : 'network', `${method} ${path}: ${timeout ? 'no answer in time' : String(error)}`, null);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text as the detail
    }
    if (!response.ok) {
      const error = (body ?? {}) as { code?: unknown; message?: unknown };
      const code = typeof error.code === 'string' ? error.code : `http_${response.status}`;
      const message = typeof error.message === 'string' ? error.message : `${method} ${path} answered ${response.status}`;
      throw new PartnerdError(response.status, code, message, body);
    }
    return body as T;
  }
}

function withTime<I extends { occurredAt?: string | Date }>(input: I): Omit<I, 'occurredAt'> & { occurredAt?: string } {
  const { occurredAt, ...rest } = input;
  return occurredAt === undefined ? rest : { ...rest, occurredAt: occurredAt instanceof Date ? occurredAt.toISOString() : occurredAt };
}

export default Partnerd;
