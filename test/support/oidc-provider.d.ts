// oidc-provider ships no types; the SSO test uses it only as a provider to sign in against.
declare module 'oidc-provider';
