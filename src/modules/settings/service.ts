// Program-wide settings: the one row of the settings table.
import type { JSONValue } from 'postgres';
import { inTransaction, type Tx } from '../../db';
import { changesOf, record } from '../audit/service';
import { throwFieldProblems } from '../../lib/errors';
import { DEFAULT_QUESTIONS, questionProblems, type ApplicationQuestion } from '../../lib/questions';
import { iso } from '../../lib/time';
import type { StoredSettings, UpdateSettingsBody } from './model';

export type Settings = typeof StoredSettings.static;

const COLUMNS = ['attribution_model', 'attribution_window_days', 'partner_signup', 'program_name', 'logo_url', 'brand_color', 'support_email', 'application_questions', 'tax_forms', 'legal_name', 'legal_address', 'vat_id', 'updated_at'];
export type AttributionModel = Settings['attributionModel'];

type SettingsRow = {
  attribution_model: AttributionModel;
  attribution_window_days: number;
  partner_signup: Settings['partnerSignup'];
  program_name: string;
  logo_url: string | null;
  brand_color: string | null;
  support_email: string | null;
  application_questions: ApplicationQuestion[] | null;
  tax_forms: Settings['taxForms'];
  legal_name: string | null;
  legal_address: string | null;
  vat_id: string | null;
  updated_at: Date;
};

function toSettings(row: SettingsRow): Settings {
  return {
    attributionModel: row.attribution_model,
    attributionWindowDays: row.attribution_window_days,
    partnerSignup: row.partner_signup,
    programName: row.program_name,
    logoUrl: row.logo_url,
    brandColor: row.brand_color,
    supportEmail: row.support_email,
    applicationQuestions: row.application_questions ?? DEFAULT_QUESTIONS,
    taxForms: row.tax_forms,
    legalName: row.legal_name,
    legalAddress: row.legal_address,
    vatId: row.vat_id,
    updatedAt: iso(row.updated_at)!,
  };
}

export async function getSettings(sql: Tx): Promise<Settings> {
  const [row] = await sql<SettingsRow[]>`select ${sql(COLUMNS)} from settings`;
  return toSettings(row!);
}

export type UpdateSettingsInput = typeof UpdateSettingsBody.static;

/** The signup questions in force: the operator's, or the built-in three. */
export async function applicationQuestions(sql: Tx): Promise<ApplicationQuestion[]> {
  const [row] = await sql<{ application_questions: ApplicationQuestion[] | null }[]>`select application_questions from settings`;
  return row?.application_questions ?? DEFAULT_QUESTIONS;
}

/**
 * Changes the settings given. `encryption`: whether ENCRYPTION_KEY is set; tax forms cannot be
 * collected without it (their tax ids are sealed with it), so collect and require are refused.
 */
export async function updateSettings(db: Tx, input: UpdateSettingsInput, env: { encryption: boolean }): Promise<Settings> {
  if (input.applicationQuestions !== undefined) throwFieldProblems(questionProblems(input.applicationQuestions));
  if (input.taxForms !== undefined && input.taxForms !== 'off' && !env.encryption) {
    throwFieldProblems([{ field: 'taxForms', message: `${input.taxForms} needs ENCRYPTION_KEY (base64 of 32 bytes) set in the service's environment: tax ids are encrypted with it` }]);
  }
  const questions = input.applicationQuestions as ApplicationQuestion[] | null | undefined;
  return inTransaction(db, async (sql) => {
    const before = await getSettingsForUpdate(sql);
    const text = (value: string | null | undefined, column: string) => (value === undefined ? sql(column) : value === null ? null : value.trim());
    const [row] = await sql<SettingsRow[]>`
    update settings set
      attribution_model = ${input.attributionModel ?? sql`attribution_model`},
      attribution_window_days = ${input.attributionWindowDays ?? sql`attribution_window_days`},
      partner_signup = ${input.partnerSignup === undefined ? sql`partner_signup` : input.partnerSignup},
      program_name = ${input.programName === undefined ? sql`program_name` : input.programName.trim()},
      logo_url = ${input.logoUrl === undefined ? sql`logo_url` : input.logoUrl},
      brand_color = ${input.brandColor === undefined ? sql`brand_color` : (input.brandColor?.toLowerCase() ?? null)},
      support_email = ${input.supportEmail === undefined ? sql`support_email` : (input.supportEmail?.toLowerCase() ?? null)},
      application_questions = ${questions === undefined ? sql`application_questions` : questions === null ? null : sql.json(questions as unknown as JSONValue)},
      tax_forms = ${input.taxForms ?? sql`tax_forms`},
      legal_name = ${text(input.legalName, 'legal_name')},
      legal_address = ${text(input.legalAddress, 'legal_address')},
      vat_id = ${text(input.vatId, 'vat_id')},
      updated_at = now()
    returning ${sql(COLUMNS)}`;
    const after = toSettings(row!);
    const { updatedAt: _was, ...was } = before;
    const { updatedAt: _now, ...now } = after;
    await record(sql, { action: 'settings.updated', target: { type: 'settings', id: 'settings' }, changes: changesOf(was, now), skipIfUnchanged: true });
    return after;
  });
}

async function getSettingsForUpdate(sql: Tx): Promise<Settings> {
  const [row] = await sql<SettingsRow[]>`select ${sql(COLUMNS)} from settings for update`;
  return toSettings(row!);
}
