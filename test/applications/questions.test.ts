// Application questions the operator defines (settings.applicationQuestions: key, label, type,
// required): the API follows them (answers under defined keys kept, unknown keys a 400 naming them,
// required ones asked for under review), bounded in count and length; the three built-in questions
// stay the default, so a program that never set them asks what it always asked.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DEFAULT_QUESTIONS } from '../../src/lib/questions';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
});
afterAll(() => svc.stop());

const signup = (body: unknown) => svc.api('POST', '/auth/signup', { key: null, body });
const storedAnswers = async (email: string) => (await svc.sql`select application_answers from partners where email = ${email}`)[0]?.application_answers;

const OWN = [
  { key: 'youtube', label: 'Your YouTube channel', type: 'url', required: true, hint: 'https://youtube.com/@you' },
  { key: 'subscribers', label: 'Subscribers', type: 'line', required: false, maxLength: 20 },
  { key: 'plan', label: 'Your plan for us', type: 'text', required: false },
];

describe('the default questions', () => {
  test('GET /settings lists the three built-in questions, and signup takes them as before', async () => {
    const settings = await svc.api('GET', '/v1/settings');
    expect(settings.body.applicationQuestions.map((q: { key: string }) => q.key)).toEqual(['website', 'audience', 'promotion']);
    expect(settings.body.applicationQuestions).toEqual(DEFAULT_QUESTIONS);
    const answers = { website: 'https://ann.example', audience: 'Developers', promotion: 'A post' };
    expect((await signup({ email: 'default@example.com', name: 'D', applicationAnswers: answers })).status).toBe(202);
    expect(await storedAnswers('default@example.com')).toEqual(answers);
    const unknown = await signup({ email: 'other@example.com', name: 'O', applicationAnswers: { twitter: '@o' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'applicationAnswers.twitter', message: 'is not a signup question (website, audience, promotion)' }]);
  });
});

describe("the operator's own questions", () => {
  test('PATCH /settings stores them in order; GET answers them', async () => {
    const res = await svc.api('PATCH', '/v1/settings', { body: { applicationQuestions: OWN } });
    expect(res.status).toBe(200);
    expect(res.body.applicationQuestions).toEqual(OWN);
    expect((await svc.api('GET', '/v1/settings')).body.applicationQuestions).toEqual(OWN);
  });

  test('answers under the defined keys are stored', async () => {
    const answers = { youtube: 'https://youtube.com/@ann', subscribers: '12k', plan: 'A review video\nand a pinned comment' };
    const res = await signup({ email: 'ann@example.com', name: 'Ann', applicationAnswers: answers });
    expect(res.status).toBe(202);
    expect(await storedAnswers('ann@example.com')).toEqual(answers);
    const [row] = await svc.sql`select id from partners where email = 'ann@example.com'`;
    expect((await svc.api('GET', `/v1/partners/${row!.id}`)).body.applicationAnswers).toEqual(answers);
  });

  test('a key no question has (the old built-in ones too) is a 400 naming it; nothing is stored', async () => {
    const res = await signup({ email: 'bob@example.com', name: 'Bob', applicationAnswers: { youtube: 'https://youtube.com/@bob', website: 'https://bob.example', tiktok: '@bob' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'applicationAnswers.website', message: 'is not a signup question (youtube, subscribers, plan)' },
      { field: 'applicationAnswers.tiktok', message: 'is not a signup question (youtube, subscribers, plan)' },
    ]);
    expect(res.body.message).toContain('applicationAnswers.website');
    expect(await storedAnswers('bob@example.com')).toBeUndefined();
  });

  test('a required question left out, or an answer out of its bounds, is a 400 on that answer', async () => {
    const missing = await signup({ email: 'cy@example.com', name: 'Cy', applicationAnswers: { subscribers: '5' } });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'applicationAnswers.youtube', message: 'required' }]);
    const none = await signup({ email: 'cy@example.com', name: 'Cy' });
    expect(none.status).toBe(400);
    expect(none.body.details).toEqual([{ field: 'applicationAnswers.youtube', message: 'required' }]);
    const bad = await signup({ email: 'cy@example.com', name: 'Cy', applicationAnswers: { youtube: 'youtube', subscribers: 'x'.repeat(21), plan: ' ' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: 'applicationAnswers.youtube', message: 'must be an http(s) address of at most 500 characters' },
      { field: 'applicationAnswers.subscribers', message: 'must be one line of 1 to 20 characters' },
      { field: 'applicationAnswers.plan', message: 'must be text of 1 to 2000 characters' },
    ]);
    expect(await storedAnswers('cy@example.com')).toBeUndefined();
  });

  test('questions are bounded: count, key shape, unique keys, label and hint length, type, answer length', async () => {
    const q = (over: Record<string, unknown>) => ({ key: 'k', label: 'L', type: 'line', required: false, ...over });
    const cases: [string, unknown, string][] = [
      ['21 questions', Array.from({ length: 21 }, (_, i) => q({ key: `k${i}` })), 'applicationQuestions'],
      ['a key with a space', [q({ key: 'has space' })], 'applicationQuestions.0.key'],
      ['a key twice', [q({ key: 'a' }), q({ key: 'a' })], 'applicationQuestions.1.key'],
      ['a blank label', [q({ label: '  ' })], 'applicationQuestions.0.label'],
      ['a 201-character label', [q({ label: 'x'.repeat(201) })], 'applicationQuestions.0.label'],
      ['a 301-character hint', [q({ hint: 'x'.repeat(301) })], 'applicationQuestions.0.hint'],
      ['an unknown type', [q({ type: 'number' })], 'applicationQuestions.0.type'],
      ['a maxLength over 5000', [q({ maxLength: 5001 })], 'applicationQuestions.0.maxLength'],
      ['required missing', [{ key: 'k', label: 'L', type: 'line' }], 'applicationQuestions.0.required'],
    ];
    for (const [label, questions, field] of cases) {
      const res = await svc.api('PATCH', '/v1/settings', { body: { applicationQuestions: questions } });
      expect({ label, status: res.status }).toEqual({ label, status: 400 });
      expect({ label, fields: res.body.details.map((d: { field: string }) => d.field) }).toEqual({ label, fields: expect.arrayContaining([field]) });
    }
    // nothing changed
    expect((await svc.api('GET', '/v1/settings')).body.applicationQuestions).toEqual(OWN);
  });

  test('null brings the built-in questions back', async () => {
    const res = await svc.api('PATCH', '/v1/settings', { body: { applicationQuestions: null } });
    expect(res.body.applicationQuestions).toEqual(DEFAULT_QUESTIONS);
    expect((await svc.sql`select application_questions from settings`)[0]!.application_questions).toBeNull();
    const answers = { website: 'https://dee.example' };
    expect((await signup({ email: 'dee@example.com', name: 'Dee', applicationAnswers: answers })).status).toBe(202);
    expect(await storedAnswers('dee@example.com')).toEqual(answers);
  });
});
