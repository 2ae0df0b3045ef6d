// The email templates the outbox can send, by name (the name is stored on each outbox row).
import { adminTemplates } from './admin-templates';
import { applicationTemplates } from './application-templates';
import { partnerTemplates } from './partner-templates';
import type { EmailTemplate } from './template';

export const TEMPLATES: Record<string, EmailTemplate> = {
  ...partnerTemplates,
  ...adminTemplates,
  ...applicationTemplates,
};

export function templateOf(name: string): EmailTemplate | undefined {
  return Object.hasOwn(TEMPLATES, name) ? TEMPLATES[name] : undefined;
}
