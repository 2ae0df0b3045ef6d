-- The signup questions an operator defines (settings.applicationQuestions): a JSON array of
-- {key, label, type, required, hint?, maxLength?}. null: the three built-in questions (website,
-- audience, promotion), so programs that never set them keep asking exactly what they asked.
alter table settings add column application_questions jsonb;
