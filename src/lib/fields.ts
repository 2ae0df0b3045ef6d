// Field schemas that several modules' requests share (a partner's email and name also sign in).
import { t } from 'elysia';

export const Email = t.String({ format: 'email', maxLength: 254, description: 'Lowercased on storage.' });
export const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
