// The signup (application) questions: what the signup page asks under review and what
// `applicationAnswers` may hold. An operator defines them in the settings; the built-in three are
// the default. Answers are text, bounded per question; a key no question has is refused.
import { t } from 'elysia';
import { AppError, type FieldProblem } from './errors';
import { plainProblems } from './plain-errors';

export const QUESTION_TYPES = ['url', 'line', 'text'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export type ApplicationQuestion = {
  key: string;
  label: string;
  /** url: an http(s) address; line: one line of text; text: a few lines. */
  type: QuestionType;
  required: boolean;
  hint?: string;
  /** The longest answer taken, in characters (default by type: url 500, line 200, text 2000). */
  maxLength?: number;
};

export const MAX_QUESTIONS = 20;
const DEFAULT_MAX: Record<QuestionType, number> = { url: 500, line: 200, text: 2000 };

/** What programs ask when the operator defined nothing: the three questions of before. */
export const DEFAULT_QUESTIONS: ApplicationQuestion[] = [
  { key: 'website', label: 'Website', type: 'url', required: false, hint: 'Your site, channel or profile: https://…' },
  { key: 'audience', label: 'Audience', type: 'text', required: false, hint: 'Who reads or watches you, and roughly how many.', maxLength: 1000 },
  { key: 'promotion', label: 'How will you promote us?', type: 'text', required: false, hint: 'Posts, videos, newsletter, comparison pages…' },
];

export const ApplicationQuestionSchema = t.Object(
  {
    key: t.String({ pattern: '^[a-z][a-z0-9_]{0,39}$', description: 'The answer\'s key in `applicationAnswers`: a lower-case letter, then up to 39 letters, digits or _.', examples: ['youtube_channel'] }),
    label: t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'The question as the signup page asks it.', examples: ['Your YouTube channel'] }),
    type: t.Union(
      [t.Literal('url'), t.Literal('line'), t.Literal('text')],
      { description: 'url: an http(s) address; line: one line of text; text: a few lines.' },
    ),
    required: t.Boolean({ description: 'Whether an application must answer it.' }),
    hint: t.Optional(t.String({ maxLength: 300, description: 'A line under the question.' })),
    maxLength: t.Optional(t.Integer({ minimum: 1, maximum: 5000, description: 'The longest answer, in characters (default: url 500, line 200, text 2000).' })),
  },
  { additionalProperties: false },
);

export const ApplicationQuestionsSchema = t.Array(ApplicationQuestionSchema, {
  maxItems: MAX_QUESTIONS,
  description: `The signup questions asked under review, in order (at most ${MAX_QUESTIONS}, keys unique). Default: website (url), audience (text, at most 1,000), promotion (text).`,
});

/** The longest answer a question takes. */
export const answerMax = (q: ApplicationQuestion) => q.maxLength ?? DEFAULT_MAX[q.type];

/**
 * The request field: checked here (questionProblems), not by the router, so that a problem deep in
 * the list is named where it is (`applicationQuestions.2.key`), not as "not null". Its shape is the
 * one GET /settings answers.
 */
export const ApplicationQuestionsField = t.Unknown({
  description: `The signup questions asked under review, in order: a list of {key, label, type: "url"|"line"|"text", required, hint?, maxLength?}, as GET /settings answers them (at most ${MAX_QUESTIONS}, keys unique); null: the three built-in ones (website, audience, promotion).`,
  examples: [[{ key: 'youtube', label: 'Your YouTube channel', type: 'url', required: true }]],
});

/** Problems of a question list as given: the schema's, in words, and keys used twice. */
export function questionProblems(value: unknown, field = 'applicationQuestions'): FieldProblem[] {
  if (value === null) return [];
  const shape = plainProblems(ApplicationQuestionsSchema, value, field);
  if (shape.length > 0) return shape;
  const questions = value as ApplicationQuestion[];
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  questions.forEach((q, i) => {
    // the signup form's own fields carry these names
    if (RESERVED_KEYS.has(q.key)) problems.push({ field: `${field}.${i}.key`, message: `${q.key} is taken by the signup form itself` });
    if (seen.has(q.key)) problems.push({ field: `${field}.${i}.key`, message: `the key ${q.key} is used twice` });
    seen.add(q.key);
  });
  return problems;
}

const RESERVED_KEYS = new Set(['email', 'name', 'ref']);

const URL_ANSWER = /^https?:\/\/[^\s/?#]+\S*$/i;

/** What is wrong with one answer, in words; null when it is fine. */
function answerProblem(q: ApplicationQuestion, value: unknown): string | null {
  const max = answerMax(q);
  if (q.type === 'url') {
    return typeof value === 'string' && value.length >= 8 && value.length <= max && URL_ANSWER.test(value) ? null : `must be an http(s) address of at most ${max} characters`;
  }
  const ok = typeof value === 'string' && value.length >= 1 && value.length <= max && /\S/.test(value) && (q.type !== 'line' || !/[\r\n]/.test(value));
  return ok ? null : `must be ${q.type === 'line' ? 'one line' : 'text'} of 1 to ${max} characters`;
}

/**
 * The answers as given (undefined when absent), or a 400 naming each field that is wrong: a key no
 * question has, an answer out of bounds, and (when `requireAnswers`) a required question left out.
 */
export function checkApplicationAnswers(
  value: unknown,
  questions: ApplicationQuestion[] = DEFAULT_QUESTIONS,
  options: { requireAnswers?: boolean } = {},
): Record<string, string> | undefined {
  const field = 'applicationAnswers';
  if (value === undefined && !options.requireAnswers) return undefined;
  const given = value ?? {};
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new AppError('invalid_body', `${field}: must be a JSON object`, [{ field, message: 'must be a JSON object' }]);
  }
  const byKey = new Map(questions.map((q) => [q.key, q]));
  const known = questions.map((q) => q.key).join(', ') || 'none';
  const answers = given as Record<string, unknown>;
  const details: FieldProblem[] = Object.keys(answers).flatMap((key) => {
    const q = byKey.get(key);
    if (!q) return [{ field: `${field}.${key}`, message: `is not a signup question (${known})` }];
    const problem = answerProblem(q, answers[key]);
    return problem ? [{ field: `${field}.${key}`, message: problem }] : [];
  });
  if (options.requireAnswers) {
    for (const q of questions) if (q.required && !Object.hasOwn(answers, q.key)) details.push({ field: `${field}.${q.key}`, message: 'required' });
  }
  if (details.length > 0) throw new AppError('invalid_body', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  return value === undefined ? undefined : (answers as Record<string, string>);
}
