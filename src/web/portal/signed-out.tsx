// The partner portal signed out: sign-in by magic link and the sign-up form.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { takeSignInRequest } from '../../modules/auth/limit';
import { Email, Name } from '../../lib/fields';
import { requestMagicLink, SENT, SIGNUP_ANSWERS, signUp, signupMode, signupOpen } from '../../workflows/sign-in';
import { checkApplicationAnswers } from '../../lib/questions';
import { applicationQuestions } from '../../modules/settings/service';
import { formErrors, schemaErrors, type FormErrors } from '../forms';
import { render, seeOther } from '../render';
import { guardPartner } from '../session';
import { SignInPage, SignupClosedPage, SignUpPage, type SignUpValues } from './pages';
import { answerErrors, queryOf, recruitingRef, SIGN_IN, type PortalKit } from './kit';
import { programPitch } from './views';

export function signedOutRoutes(ctx: AppContext, kit: PortalKit) {
  return new Elysia({ detail: { hide: true } })
    .get(SIGN_IN, async ({ request }) => {
      const guard = await guardPartner(ctx, request);
      if (guard.kind === 'partner') return seeOther('/portal');
      const { csrf, headers } = kit.anonCsrf(request);
      return render(<SignInPage brand={await kit.brandOf()} csrf={csrf} signupOpen={await signupOpen(ctx)} />, { headers });
    })
    .post(SIGN_IN, ({ request, body }) =>
      kit.anonForm(request, body, SIGN_IN, async (form, csrf) => {
        const open = await signupOpen(ctx);
        const email = (form.email ?? '').trim();
        const errors = schemaErrors(t.Object({ email: Email }), { email });
        if (Object.keys(errors).length > 0) {
          return render(<SignInPage brand={await kit.brandOf()} csrf={csrf} email={email} errors={errors} signupOpen={open} />, { status: 400 });
        }
        try {
          await takeSignInRequest(ctx.sql, email);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          // the limit is per email: say so beside the email field
          return render(<SignInPage brand={await kit.brandOf()} csrf={csrf} email={email} errors={{ email: error.message }} signupOpen={open} />, { status: error.status });
        }
        await requestMagicLink(ctx, email);
        return render(<SignInPage brand={await kit.brandOf()} csrf={csrf} sent={SENT.message} signupOpen={open} />);
      }),
    )
    .get('/portal/sign-up', async ({ request }) => {
      const mode = await signupMode(ctx);
      if (mode === 'closed') return render(<SignupClosedPage brand={await kit.brandOf()} />, { status: 404 });
      const { csrf, headers } = kit.anonCsrf(request);
      return render(
        <SignUpPage brand={await kit.brandOf()} csrf={csrf} mode={mode} pitch={await programPitch(ctx)} questions={await applicationQuestions(ctx.sql)} values={{ ref: recruitingRef(queryOf(request).ref) }} />,
        { headers },
      );
    })
    .post('/portal/sign-up', ({ request, body }) =>
      kit.anonForm(request, body, '/portal/sign-up', async (form, csrf) => {
        const mode = await signupMode(ctx);
        if (mode === 'closed') return render(<SignupClosedPage brand={await kit.brandOf()} />, { status: 404 });
        const values: SignUpValues = { email: (form.email ?? '').trim(), name: (form.name ?? '').trim(), ref: recruitingRef(form.ref) };
        // the program's questions, only under review; a blank answer is no answer
        const questions = await applicationQuestions(ctx.sql);
        const answers: Record<string, string> = {};
        if (mode === 'review') {
          values.answers = {};
          for (const q of questions) {
            const given = (form[q.key] ?? '').trim();
            values.answers[q.key] = given;
            if (given) answers[q.key] = given;
          }
        }
        const page = async (status: number, errors: FormErrors) =>
          render(<SignUpPage brand={await kit.brandOf()} csrf={csrf} mode={mode} pitch={await programPitch(ctx)} questions={questions} values={values} errors={errors} />, { status });
        const errors = schemaErrors(t.Object({ email: Email, name: Name }), { email: values.email, name: values.name });
        try {
          if (mode === 'review') checkApplicationAnswers(answers, questions, { requireAnswers: true });
        } catch (error) {
          Object.assign(errors, answerErrors(error));
        }
        if (Object.keys(errors).length > 0) return page(400, errors);
        try {
          await takeSignInRequest(ctx.sql, values.email!);
          const ran = await signUp(ctx, { email: values.email!, name: values.name!, applicationAnswers: mode === 'review' ? answers : undefined, ref: values.ref });
          return render(<SignUpPage brand={await kit.brandOf()} csrf={csrf} mode={ran} pitch={{ terms: [], payoutTerms: '' }} questions={[]} sent={SIGNUP_ANSWERS[ran]} />);
        } catch (error) {
          if (error instanceof AppError && error.code === 'forbidden') return render(<SignupClosedPage brand={await kit.brandOf()} />, { status: 404 });
          const problems = formErrors(error, ['email', 'name']);
          if (!problems) throw error;
          return page((error as AppError).status, { ...problems, ...answerErrors(error) });
        }
      }),
    );
}
