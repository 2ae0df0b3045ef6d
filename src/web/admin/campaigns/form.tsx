// The campaign form (create and edit): fields, rule rows, the summary in words, and the edit page.
import type { AppContext } from '../../../context';
import type { Rule } from '../../../modules/campaigns/rules';
import type { Campaign } from '../../../modules/campaigns/service';
import { Field, type FormErrors } from '../../forms';
import { PAGE_CSP } from '../../render';
import type { AdminPage } from '../../session';
import { describeTerms } from '../../terms';
import { RuleRows, summaryRules, TermsSummary } from '../rule-editor';
import { AdminLayout } from '../kit';
import { RuleForm, RulesSection, SubmitActions, SummarySection } from '../kit/rule-form';
import { href } from '../../ui';
import { campaignPath, eventTypes, LIST, type CampaignValues } from './shared';

export async function editView(ctx: AppContext, page: AdminPage, campaign: Campaign, values: CampaignValues, errors?: FormErrors) {
  return (<EditPage page={page} campaign={campaign} values={values} errors={errors} eventTypes={await eventTypes(ctx)} holdbackDefault={ctx.config.holdbackDays} />) as string;
}

export function EditPage(props: { page: AdminPage; campaign: Campaign; values: CampaignValues; errors?: FormErrors; eventTypes: string[]; holdbackDefault: number }) {
  const c = props.campaign;
  return (
    <AdminLayout page={props.page} title={`Edit ${c.name}`} current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <p class="back">
        <a href={campaignPath(c.id)} safe>
          {`Back to ${c.name}`}
        </a>
      </p>
      <h1 safe>{`Edit ${c.name}`}</h1>
      <CampaignForm
        page={props.page}
        action={campaignPath(c.id)}
        values={props.values}
        errors={props.errors}
        submit="Save campaign"
        eventTypes={props.eventTypes}
        holdbackDefault={props.holdbackDefault}
        cancel={campaignPath(c.id)}
        preview
      />
    </AdminLayout>
  );
}

/** A piece of a page for htmx to swap in (no doctype), with the page headers. */
export function fragment(html: string): Response {
  return new Response(html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
  });
}

/** The form's rules in words (rows with problems left out), with the holdback typed or the default. */
export function FormSummary(props: { values: CampaignValues; errors?: FormErrors; holdbackDefault: number }) {
  const v = props.values;
  const currency = /^[A-Z]{3}$/.test(v.currency) ? v.currency : 'USD';
  const holdback = /^[0-9]{1,4}$/.test(v.holdbackDays) ? Number(v.holdbackDays) : props.holdbackDefault;
  const rules = summaryRules(v.rows, props.errors) as Rule[];
  return <TermsSummary rules={rules} terms={describeTerms({ rules, currency, holdbackDays: holdback })} id="rule-summary" />;
}

export function CampaignForm(props: {
  page: AdminPage;
  action: string;
  values: CampaignValues;
  errors?: FormErrors;
  submit: string;
  eventTypes: string[];
  holdbackDefault: number;
  cancel?: string;
  /** An existing campaign: its editor offers the preview step before saving. */
  preview?: boolean;
}) {
  const v = props.values;
  const e = props.errors ?? {};
  const currency = /^[A-Z]{3}$/.test(v.currency) ? v.currency : 'the campaign currency';
  return (
    <RuleForm id="campaign-form" action={props.action} summaryAction={`${LIST}/summary`} csrf={props.page.csrf} errors={e}>
      <div class="narrow">
        <Field name="name" label="Name" value={v.name} error={e.name} required />
        <Field name="destinationUrl" label="Destination URL" hint="Where share links land, e.g. https://app.example.com/signup" value={v.destinationUrl} error={e.destinationUrl} required />
        <Field name="currency" label="Currency" hint="ISO 4217 code, e.g. USD or EUR; flat amounts are in it" value={v.currency} error={e.currency} required />
        <Field
          name="holdbackDays"
          label="Holdback days (optional)"
          hint={`Days before a commission is approved; empty: the service default (${props.holdbackDefault}).`}
          value={v.holdbackDays}
          error={e.holdbackDays}
        />
        <Field
          name="recruiterPercent"
          label="Recruiter percent (optional)"
          hint="Two-tier rewards: a partner who recruited another earns this percent of each commission the recruit earns in this campaign, as its own commission. Empty: off."
          value={v.recruiterPercent}
          error={e.recruiterPercent}
        />
      </div>
      <h2 id="rules-title">Commission rules</h2>
      <p class="hint">Each rule reads as a sentence. Rules are tried in order; the first that matches an event pays. Leave a row empty to skip it.</p>
      <RulesSection>
        <RuleRows rows={v.rows} errors={e} eventTypes={props.eventTypes} currency={currency} />
      </RulesSection>
      <SummarySection>
        <FormSummary values={v} errors={props.errors} holdbackDefault={props.holdbackDefault} />
      </SummarySection>
      {!!props.preview && (
        <section class="preview-ask" aria-labelledby="preview-ask-title">
          <h3 id="preview-ask-title">Before saving: what would these rules have paid?</h3>
          <p class="hint">Replays this campaign's events under the rules above and shows, per partner, what they earned and what they would have earned. Nothing is saved until you confirm.</p>
          <div class="preview-row">
            <Field name="previewDays" label="Replay the last (days)" hint="1 to 365; empty: 30" value={v.previewDays} error={e.previewDays} />
            <button type="submit" name="_preview" value="1" class="secondary" id="preview-button">
              Preview the change
            </button>
          </div>
        </section>
      )}
      <SubmitActions submit={props.submit} cancel={props.cancel} />
    </RuleForm>
  );
}
