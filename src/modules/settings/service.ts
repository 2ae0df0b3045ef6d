// Program-wide settings: the one row of the settings table.
import type { Tx } from '../../db';
import { iso } from '../../lib/time';
import type { StoredSettings, UpdateSettingsBody } from './model';

export type Settings = typeof StoredSettings.static;
export type AttributionModel = Settings['attributionModel'];

type SettingsRow = {
  attribution_model: AttributionModel;
  attribution_window_days: number;
  partner_signup: Settings['partnerSignup'];
  updated_at: Date;
};

function toSettings(row: SettingsRow): Settings {
  return {
    attributionModel: row.attribution_model,
    attributionWindowDays: row.attribution_window_days,
    partnerSignup: row.partner_signup,
    updatedAt: iso(row.updated_at)!,
  };
}

export async function getSettings(sql: Tx): Promise<Settings> {
  const [row] = await sql<SettingsRow[]>`select attribution_model, attribution_window_days, partner_signup, updated_at from settings`;
  return toSettings(row!);
}

export type UpdateSettingsInput = typeof UpdateSettingsBody.static;

export async function updateSettings(sql: Tx, input: UpdateSettingsInput): Promise<Settings> {
  const [row] = await sql<SettingsRow[]>`
    update settings set
      attribution_model = ${input.attributionModel ?? sql`attribution_model`},
      attribution_window_days = ${input.attributionWindowDays ?? sql`attribution_window_days`},
      partner_signup = ${input.partnerSignup === undefined ? sql`partner_signup` : input.partnerSignup},
      updated_at = now()
    returning attribution_model, attribution_window_days, partner_signup, updated_at`;
  return toSettings(row!);
}
