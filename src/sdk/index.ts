// The Partnerd server SDK: typed, fetch-based, no dependencies. For the operator's backend only
// (it carries a secret API key): import { Partnerd } from 'partnerd/sdk'.

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

export type Metadata = Record<string, unknown>;

export type EventInput = {
  userId: string;
  type: 'signup' | 'trial_started' | 'subscription_created' | 'invoice_paid' | (string & {});
  /** Integer minor units (cents); required for events that drive percent commissions, with currency. */
  amount?: number;
  currency?: string;
  /** ISO 8601; defaults to server time. */
  occurredAt?: string | Date;
  metadata?: Metadata;
};

export type Event = {
  id: string;
  userId: string;
  type: string;
  amount: number | null;
  currency: string | null;
  occurredAt: string;
  createdAt: string;
  metadata: Metadata;
};

export type TrackInput = Omit<EventInput, 'amount'> & {
  /** Decimal in MAJOR units (19.99 = $19.99); required with currency for percent commissions. */
  value?: number;
};

export type AttributionStatus = 'attributed' | 'no_identity' | 'no_click' | 'outside_window';

export type AttributionResult = {
  ok: boolean;
  eventId: string;
  attribution: {
    status: AttributionStatus;
    model: 'last_click' | 'linear' | 'position' | (string & {});
    touches: { clickId: string; partnerId: string; weight: number; attributionId: string; commissionId: string | null }[];
  };
};

export type Rule = {
  eventType: string;
  kind: 'percent' | 'flat';
  percent?: number;
  amount?: string;
  maxOccurrences?: number;
  durationDays?: number;
  match?: Record<string, string | number | boolean>;
};

export type PartnerInput = {
  email: string;
  name: string;
  /** Default true: a magic-link invite is emailed; false activates the partner at once. */
  sendInvite?: boolean;
  metadata?: Metadata;
  /** Omitted: all current campaigns; []: none. */
  campaignIds?: string[];
  campaignGrantSource?: 'admin' | 'offering';
  commissionSnapshot?: { rules: Rule[]; holdbackDays?: number };
};

export type CreatedPartner = {
  id: string;
  email: string;
  name: string;
  activatedAt: string | null;
  createdAt: string;
  invited: boolean;
  campaignIds: string[];
};

export type PartnerListItem = {
  id: string;
  email: string;
  name: string;
  billingConnectAccountId: string | null;
  createdAt: string;
  activatedAt: string | null;
  revokedAt: string | null;
};

export type Partner = PartnerListItem & {
  status: 'pending' | 'active' | 'revoked';
  revokeReason: string | null;
  metadata: Metadata;
  campaignIds: string[];
};

export type PartnerUpdate = {
  name?: string;
  metadata?: Metadata;
  campaignIds?: string[];
  billingConnectAccountId?: string | null;
};

export type Page = { limit?: number; cursor?: string };

export type LinkInput = { campaignId: string; partnerId?: string; slug?: string };
export type Link = { id: string; slug: string; url: string; partnerId: string; campaignId: string; createdAt: string };

export type Commission = {
  id: string;
  status: 'accrued' | 'approved' | 'paid' | 'reversed';
  partnerId: string;
  campaignId: string;
  attributionId: string;
  eventId: string;
  userId: string;
  amount: string;
  currency: string;
  eventType: string;
  eventValue: number | null;
  holdbackDays: number;
  createdAt: string;
  approvedAt: string | null;
  paidAt: string | null;
  reversedAt: string | null;
  reason: string | null;
  payoutId: string | null;
};

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
    list: (page: Page = {}) => this.#request<{ events: (Event & { attribution: { status: AttributionStatus; model: string | null } })[]; nextCursor: string | null }>('GET', '/v1/events', { query: page }),
  };

  readonly attribution = {
    /** Records a conversion event (value in major units) and answers who it was attributed to. */
    track: (input: TrackInput, options: RequestOptions = {}) =>
      this.#request<AttributionResult>('POST', '/attribution/events', { body: withTime(input), ...options }),
  };

  readonly partners = {
    create: (input: PartnerInput) => this.#request<CreatedPartner>('POST', '/v1/partners', { body: input }),
    list: (params: Page & { email?: string } = {}) => this.#request<{ partners: PartnerListItem[]; nextCursor: string | null }>('GET', '/v1/partners', { query: params }),
    get: (id: string) => this.#request<Partner>('GET', `/v1/partners/${encodeURIComponent(id)}`),
    update: (id: string, input: PartnerUpdate) => this.#request<Partner>('PATCH', `/v1/partners/${encodeURIComponent(id)}`, { body: input }),
    revoke: (id: string, input: { reason?: string } = {}) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/revoke`, { body: input }),
    reinstate: (id: string) => this.#request<Partner>('POST', `/v1/partners/${encodeURIComponent(id)}/reinstate`),
    /** Sends a fresh magic-link invite (admin key). */
    invite: (id: string) => this.#request<{ ok: boolean; expiresAt: string }>('POST', `/v1/partners/${encodeURIComponent(id)}/invite`),
  };

  readonly links = {
    create: (input: LinkInput) => this.#request<Link>('POST', '/v1/links', { body: input }),
  };

  readonly commissions = {
    list: (params: Page & { status?: Commission['status']; partnerId?: string; campaignId?: string; from?: string; to?: string } = {}) =>
      this.#request<{ commissions: Commission[]; nextCursor: string | null }>('GET', '/v1/commissions', { query: params }),
    get: (id: string) => this.#request<Commission>('GET', `/v1/commissions/${encodeURIComponent(id)}`),
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
