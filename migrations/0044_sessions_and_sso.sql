-- Admins see their sessions (which browser) and end them; single sign-on's logins in flight.

alter table sessions add column user_agent text;

-- An OpenID Connect sign-in under way: its state (hashed; the browser holds it in a cookie too),
-- the PKCE verifier and the nonce, used once and only for ten minutes. A replayed or forged callback
-- finds no row, or a used one.
create table oidc_logins (
  state_hash     text primary key,
  code_verifier  text not null,
  nonce          text not null,
  created_at     timestamptz not null default now(),
  expires_at     timestamptz not null,
  used_at        timestamptz
);
