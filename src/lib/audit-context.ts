// Who is making a change, for the audit log: one request-scoped context (AsyncLocalStorage) opened
// by the HTTP front (app.ts createFetch: ip, user agent, request id), given its actor where the
// request is authenticated (the auth plugin, the page guards, a provider webhook's route), and
// opened afresh by each job. Write paths read it in modules/audit record(), so no service grows an
// "actor" parameter only to pass it along.
import { AsyncLocalStorage } from 'node:async_hooks';

export type ActorType = 'admin' | 'key' | 'partner' | 'job' | 'provider';
export type Actor = { type: ActorType; id: string; email?: string };

export type AuditContext = {
  actor: Actor | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
};

const storage = new AsyncLocalStorage<AuditContext>();

/** Who changes things when nothing says otherwise: a script or a test calling a service directly. */
export const SYSTEM_ACTOR: Actor = { type: 'job', id: 'system' };

/** Runs one request's work with its context; the actor is set later, once the request is authenticated. */
export function withRequestContext<T>(context: Omit<AuditContext, 'actor'>, run: () => T): T {
  return storage.run({ ...context, actor: null }, run);
}

/** Runs work as the given actor with no request around it (a job, a startup task). */
export function asActor<T>(actor: Actor, run: () => T): T {
  return storage.run({ actor, ip: null, userAgent: null, requestId: null }, run);
}

/** Names the actor of the request under way (a no-op outside one). */
export function setActor(actor: Actor): void {
  const context = storage.getStore();
  if (context) context.actor = actor;
}

/** The context of the work under way, with the system actor when none was named. */
export function currentAuditContext(): AuditContext & { actor: Actor } {
  const context = storage.getStore();
  return { ip: null, userAgent: null, requestId: null, ...context, actor: context?.actor ?? SYSTEM_ACTOR };
}
