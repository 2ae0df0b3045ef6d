// What a new install still lacks to be usable, said once for the start log and the sign-in pages.
import type { Config } from '../config';

/** Whether anyone can sign in to the admin pages (an ADMIN_EMAILS address). */
export function adminCanSignIn(config: Pick<Config, 'adminEmails'>): boolean {
  return config.adminEmails.length > 0;
}

/** Whether sign-in and invite links are mailed (SMTP_URL) or only written to the log. */
export function linksGoToLog(config: Pick<Config, 'smtpUrl'>): boolean {
  return !config.smtpUrl;
}

export const NO_ADMIN =
  'No admin can sign in: ADMIN_EMAILS is empty, nobody is on the team and no single sign-on domain lets anyone join. Set ADMIN_EMAILS to a comma-separated list of addresses and restart; until then the admin pages cannot be opened (the API still answers to the admin API key).';

export const LINKS_IN_LOG =
  'No mail server is configured (SMTP_URL is unset): sign-in and invite links are not mailed but written to the service log, in a line "mail (SMTP_URL unset, not sent)".';

/**
 * The warnings a start writes: nothing when the install is complete. `nobodyCanSignIn` is the team's
 * answer (nobodyCanSignIn in modules/team): ADMIN_EMAILS empty, nobody on the team, no SSO domain.
 */
export function firstRunWarnings(config: Pick<Config, 'smtpUrl'>, state: { nobodyCanSignIn: boolean }): string[] {
  return [...(state.nobodyCanSignIn ? [NO_ADMIN] : []), ...(linksGoToLog(config) ? [LINKS_IN_LOG] : [])];
}
