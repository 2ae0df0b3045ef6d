// Program-wide settings: the one row of the settings table.
import type { Tx } from '../../db';
import { iso } from '../../lib/time';

export type AttributionModel = 'last_click' | 'linear' | 'position';

export type Settings = {
  attributionModel: AttributionModel;
  attributionWindowDays: number;
  /** null: the PARTNER_SIGNUP setting applies. */
  partnerSignup: 'open' | 'closed' | null;
  updatedAt: string;
};

function toSettings(row: Record<string, any>): Settings {
  return {
    attributionModel: row.attribution_model,
    attributionWindowDays: row.attribution_window_days,
    partnerSignup: row.partner_signup ?? null,
    updatedAt: iso(row.updated_at)!,
  };
}

export async function getSettings(sql: Tx): Promise<Settings> {
  const [row] = await sql`select attribution_model, attribution_window_days, partner_signup, updated_at from settings`;
  return toSettings(row!);
}

export type UpdateSettingsInput = {
  attributionModel?: AttributionModel;
  attributionWindowDays?: number;
  partnerSignup?: 'open' | 'closed' | null;
};

export async function updateSettings(sql: Tx, input: UpdateSettingsInput): Promise<Settings> {
  const [row] = await sql`
    update settings set
      attribution_model = ${input.attributionModel ?? sql`attribution_model`},
      attribution_window_days = ${input.attributionWindowDays ?? sql`attribution_window_days`},
      partner_signup = ${input.partnerSignup === undefined ? sql`partner_signup` : input.partnerSignup},
      updated_at = now()
    returning attribution_model, attribution_window_days, partner_signup, updated_at`;
  return toSettings(row!);
}
