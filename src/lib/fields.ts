// Field schemas that several modules' requests share (a partner's email and name also sign in).
import { t } from 'elysia';

export const Email = t.String({ format: 'email', maxLength: 254, description: 'Lowercased on storage.' });
export const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

/** Answers to the signup questions, by question key (src/lib/questions.ts decides what is accepted). */
export type ApplicationAnswers = Record<string, string>;
export { checkApplicationAnswers } from './questions';

/**
 * The request field. Declared unknown, as metadata is: Elysia's normaliser would turn a string into
 * `{}` and drop unknown questions before the schema sees them; checkApplicationAnswers() decides.
 */
export const ApplicationAnswersField = t.Unknown({
  description:
    'Answers to the signup questions, by question key (`GET /settings` lists them as `applicationQuestions`; by default `website` (http(s) address, at most 500 characters), `audience` (at most 1,000) and `promotion` (at most 2,000), all optional). A key no question has is a 400 naming it; under review a required question left out is a 400 too.',
  examples: [{ website: 'https://ann.example', audience: 'Indie developers', promotion: 'A review post and the newsletter' }],
});
