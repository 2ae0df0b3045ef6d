// The branding every email and page shows, read from the settings row.
import type { Tx } from '../db';
import type { Brand } from './render';

export type MailSettings = Brand & { mailSecret: string };

export async function loadBrand(sql: Tx, baseUrl: string): Promise<MailSettings> {
  const [row] = await sql<{ program_name: string; logo_url: string | null; brand_color: string | null; support_email: string | null; mail_secret: string }[]>`
    select program_name, logo_url, brand_color, support_email, mail_secret from settings`;
  return {
    programName: row!.program_name,
    logoUrl: row!.logo_url,
    brandColor: row!.brand_color,
    supportEmail: row!.support_email,
    baseUrl,
    mailSecret: row!.mail_secret,
  };
}
