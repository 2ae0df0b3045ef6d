// Create or save a campaign from its form, or replay its draft rules (the preview step).
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import type { AppError } from '../../../lib/errors';
import { CreateCampaignBody } from '../../../modules/campaigns/model';
import type { Rule } from '../../../modules/campaigns/rules';
import { createCampaign, destinationProblem, updateCampaign, type Campaign } from '../../../modules/campaigns/service';
import { schemaErrors, type FormErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { moreRows, rowsToRules, serviceErrors } from '../rule-editor';
import { previewRules } from '../../../modules/commissions/preview';
import { partnersByIds } from '../../../modules/reports/partners';
import { PreviewPage, type PreviewAnswer } from '../rule-preview';
import { campaignPath, FORM_FIELDS, readPreviewDays, readRecruiterPercent, readValues, type CampaignValues } from './shared';
import { editView } from './form';
import { listView } from './list';

/**
 * Create (campaign null) or save: validates the form with the API's schemas, then calls the
 * service; "Add another rule" or "Add another tier" (without script) only redraws the form with one
 * more empty row or tier row, everything typed kept.
 */
export async function submit(ctx: AppContext, page: AdminPage, form: Record<string, string>, campaign: Campaign | null): Promise<Response> {
  const { removed, ...values } = readValues(form);
  const redraw = async (v: CampaignValues, errors: FormErrors | undefined, status: number) =>
    render(campaign ? await editView(ctx, page, campaign, v, errors) : await listView(ctx, page, { values: v, errors }), { status });
  // back from the preview step: the editor as it was typed, nothing saved
  if (form._edit !== undefined) return redraw(values, undefined, 200);
  const more = moreRows(form, values.rows, removed);
  if (more) return redraw({ ...values, rows: more }, undefined, 200);
  const { rules, rowOf, tierOf, errors } = rowsToRules(values.rows, removed);
  const recruiter = readRecruiterPercent(values.recruiterPercent);
  if (recruiter.error) errors.recruiterPercent = recruiter.error;
  let holdbackDays: number | null = null;
  if (values.holdbackDays !== '') {
    if (/^[0-9]{1,4}$/.test(values.holdbackDays) && Number(values.holdbackDays) <= 3650) holdbackDays = Number(values.holdbackDays);
    else errors.holdbackDays = 'a whole number of days, 0 to 3650 (empty: the default)';
  }
  const fields = schemaErrors(t.Omit(CreateCampaignBody, ['rules', 'holdbackDays']), { name: values.name, destinationUrl: values.destinationUrl, currency: values.currency });
  // the service's own check, on the first submit beside the others (a javascript: address passes the
  // schema's length check); its wording is clearer than the schema's too
  const destination = values.destinationUrl !== '' ? destinationProblem(values.destinationUrl) : null;
  if (destination) fields.destinationUrl = destination;
  for (const [k, message] of Object.entries(fields)) errors[k] ??= message;
  if (Object.keys(errors).length > 0) return redraw(values, errors, 400);
  const input = { name: values.name, destinationUrl: values.destinationUrl, currency: values.currency, holdbackDays, rules: rules as Rule[], recruiterPercent: recruiter.value };
  if (campaign && form._preview !== undefined) {
    const days = readPreviewDays(values.previewDays);
    if (days.error) return redraw(values, { previewDays: days.error }, 400);
    return previewStep(ctx, page, campaign, form, values, input.rules, days.value, { rowOf, tierOf });
  }
  try {
    const saved = campaign ? await updateCampaign(ctx.sql, campaign.id, input) : await createCampaign(ctx.sql, input);
    return seeOther(`${campaignPath(saved.id)}?done=${campaign ? 'saved' : 'created'}`);
  } catch (error) {
    const problems = serviceErrors(error, { rowOf, tierOf }, FORM_FIELDS);
    if (!problems) throw error;
    return redraw(values, problems, (error as AppError).status);
  }
}

/**
 * The preview step: the draft rules replayed over the campaign's last `days` of events (nothing
 * written); a refusal of the rules shows beside their fields in the editor, as a save would.
 */
export async function previewStep(
  ctx: AppContext,
  page: AdminPage,
  campaign: Campaign,
  form: Record<string, string>,
  values: CampaignValues,
  rules: Rule[],
  days: number,
  at: { rowOf: number[]; tierOf: number[][] },
): Promise<Response> {
  let answer: PreviewAnswer;
  try {
    answer = await previewRules(ctx.sql, { campaignId: campaign.id, rules, days });
  } catch (error) {
    const problems = serviceErrors(error, at, FORM_FIELDS);
    if (!problems) throw error;
    return render(await editView(ctx, page, campaign, values, problems), { status: (error as AppError).status });
  }
  const names = new Map((await partnersByIds(ctx.sql, answer.partners.map((p) => p.partnerId))).map((p) => [p.id, p.name]));
  const holdbackDays = /^[0-9]{1,4}$/.test(values.holdbackDays) ? Number(values.holdbackDays) : ctx.config.holdbackDays;
  return render(
    <PreviewPage page={page} campaign={campaign} action={campaignPath(campaign.id)} form={form} rules={rules} holdbackDays={holdbackDays} answer={answer} names={names} />,
  );
}
