// Single sign-on for the admin with OpenID Connect (openid-client): the authorization code flow
// with PKCE, the state and nonce checked. A login in flight is a row of oidc_logins (its state
// hashed) and a cookie holding the state: the callback must bring both, once, within ten minutes.
import * as client from 'openid-client';
import type { Config } from '../../config';
import type { Sql, Tx } from '../../db';
import { safeEqual, sha256 } from '../../lib/crypto';
import { MINUTE } from '../../lib/time';

export const OIDC_COOKIE = 'partnerd_oidc';
export const OIDC_CALLBACK = '/auth/oidc/callback';
const LOGIN_TTL_MS = 10 * MINUTE;

export type OidcSettings = NonNullable<Config['oidc']>;

/** The provider's configuration, discovered once per process (on first use) and kept. */
export type OidcClient = { settings: OidcSettings; configuration(): Promise<client.Configuration> };

export function createOidcClient(settings: OidcSettings | null): OidcClient | null {
  if (!settings) return null;
  let discovered: Promise<client.Configuration> | null = null;
  return {
    settings,
    configuration() {
      discovered ??= client
        .discovery(new URL(settings.issuer), settings.clientId, undefined, client.ClientSecretPost(settings.clientSecret), {
          // a provider on plain http is for local testing only
          execute: settings.issuer.startsWith('http://') ? [client.allowInsecureRequests] : [],
        })
        .catch((error) => {
          discovered = null;
          throw error;
        });
      return discovered;
    },
  };
}

/** Starts a login: remembers its state, verifier and nonce; answers the state and the provider's URL. */
export async function startLogin(sql: Tx, oidc: OidcClient, baseUrl: string): Promise<{ state: string; url: URL }> {
  const configuration = await oidc.configuration();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  await sql`delete from oidc_logins where expires_at < now()`;
  await sql`
    insert into oidc_logins (state_hash, code_verifier, nonce, expires_at)
    values (${sha256(state)}, ${verifier}, ${nonce}, ${new Date(Date.now() + LOGIN_TTL_MS)})`;
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: `${baseUrl}${OIDC_CALLBACK}`,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { state, url };
}

export type OidcIdentity = { email: string; verified: boolean };

export class OidcRefused extends Error {}

/**
 * Finishes a login: the callback's state must be the browser's cookie and a login not yet used
 * (it is used now, so a replay fails); the code is exchanged with the verifier, the ID token's
 * nonce checked. Answers the email and whether the provider verified it.
 */
export async function finishLogin(sql: Sql, oidc: OidcClient, baseUrl: string, callbackUrl: URL, cookieState: string | undefined): Promise<OidcIdentity> {
  const state = callbackUrl.searchParams.get('state') ?? '';
  if (!cookieState || !state || cookieState.length > 200 || !safeEqual(cookieState, state)) throw new OidcRefused('the sign-in did not start in this browser (its state does not match)');
  const [login] = await sql<{ code_verifier: string; nonce: string }[]>`
    update oidc_logins set used_at = now()
    where state_hash = ${sha256(state)} and used_at is null and expires_at > now()
    returning code_verifier, nonce`;
  if (!login) throw new OidcRefused('this sign-in link was used already or has expired; start again');
  const configuration = await oidc.configuration();
  const current = new URL(`${baseUrl}${OIDC_CALLBACK}${callbackUrl.search}`);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: login.code_verifier,
      expectedState: state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw new OidcRefused(`the provider's answer was refused: ${(error as Error).message}`);
  }
  const claims = tokens.claims()!;
  let email = claims.email;
  let verified = claims.email_verified;
  if (typeof email !== 'string') {
    // providers that keep the email out of the ID token give it from userinfo
    const info = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    email = info.email;
    verified = info.email_verified;
  }
  if (typeof email !== 'string' || email === '') throw new OidcRefused('the provider gave no email address');
  return { email: email.trim().toLowerCase(), verified: verified === true };
}

/** The cookie that holds a login's state until the callback (only the callback reads it). */
export function oidcCookie(baseUrl: string, value: string, maxAgeSeconds: number): string {
  const secure = baseUrl.startsWith('https://') ? '; Secure' : '';
  return `${OIDC_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}
