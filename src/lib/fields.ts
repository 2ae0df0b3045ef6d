// Field schemas that several modules' requests share (a partner's email and name also sign in).
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { t } from 'elysia';
import { AppError, invalidFields } from './errors';

export const Email = t.String({ format: 'email', maxLength: 254, description: 'Lowercased on storage.' });
export const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

/**
 * The signup questions (fixed, all optional): where the partner publishes, who reads it, how they
 * will promote the product. Stored with the partner as `applicationAnswers` and shown to admins.
 */
export const ApplicationAnswers = t.Object(
  {
    website: t.Optional(
      t.String({ minLength: 8, maxLength: 500, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$', description: 'An http(s) address: the site, channel or profile.' }),
    ),
    audience: t.Optional(t.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: 'Who they reach, in their words.' })),
    promotion: t.Optional(t.String({ minLength: 1, maxLength: 2000, pattern: '\\S', description: 'How they will promote the product.' })),
  },
  { additionalProperties: false },
);
export type ApplicationAnswers = typeof ApplicationAnswers.static;

/**
 * The request field. Declared unknown, as metadata is: Elysia's normaliser would turn a string into
 * `{}` and drop unknown questions before the schema sees them; checkApplicationAnswers() decides.
 */
export const ApplicationAnswersField = t.Unknown({
  description: 'Answers to the signup questions, all optional: `website` (http(s) address, at most 500 characters), `audience` (at most 1,000), `promotion` (at most 2,000).',
  examples: [{ website: 'https://ann.example', audience: 'Indie developers', promotion: 'A review post and the newsletter' }],
});

const ANSWER_PROBLEMS: Record<string, string> = {
  website: 'must be an http(s) address of at most 500 characters',
  audience: 'must be text of 1 to 1000 characters',
  promotion: 'must be text of 1 to 2000 characters',
};

/** The answers as given (undefined when absent), or a 400 naming each field that is wrong. */
export function checkApplicationAnswers(value: unknown): ApplicationAnswers | undefined {
  if (value === undefined) return undefined;
  const field = 'applicationAnswers';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_body', `${field}: must be a JSON object`, [{ field, message: 'must be a JSON object' }]);
  }
  const details = Object.keys(value).flatMap((key) => {
    if (!Object.hasOwn(ANSWER_PROBLEMS, key)) return [{ field: `${field}.${key}`, message: 'is not a signup question (website, audience, promotion)' }];
    const one = (ApplicationAnswers.properties as Record<string, TSchema>)[key]!;
    return Value.Check(one, (value as Record<string, unknown>)[key]) ? [] : [{ field: `${field}.${key}`, message: ANSWER_PROBLEMS[key]! }];
  });
  if (details.length > 0) throw invalidFields(details);
  return value as ApplicationAnswers;
}
