import type { EmailKind } from './one-time';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const SUBJECTS: Record<EmailKind, string> = {
  signup: 'Confirm Your Signup',
  invite: 'You have been invited',
  recovery: 'Reset Your Password',
  magiclink: 'Your Magic Link',
  email_change: 'Confirm Email Change',
};

const LEADS: Record<EmailKind, { heading: string; action: string; label: string }> = {
  signup: {
    heading: 'Confirm your signup',
    action: 'Follow this link to confirm your user:',
    label: 'Confirm your mail',
  },
  invite: {
    heading: 'You have been invited',
    action: 'You have been invited to create a user. Follow this link to accept the invite:',
    label: 'Accept the invite',
  },
  recovery: {
    heading: 'Reset Password',
    action: 'Follow this link to reset the password for your user:',
    label: 'Reset Password',
  },
  magiclink: {
    heading: 'Magic Link',
    action: 'Follow this link to login:',
    label: 'Log In',
  },
  email_change: {
    heading: 'Confirm Change of Email',
    action: 'Follow this link to confirm the update of your email to this address:',
    label: 'Change Email',
  },
};

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** GoTrue's default templates: the link, and the six-digit code for verifyOtp. */
export function renderAuthEmail(
  kind: EmailKind,
  input: { link: string; code: string },
): RenderedEmail {
  const lead = LEADS[kind];
  const link = escapeHtml(input.link);
  return {
    subject: SUBJECTS[kind],
    html:
      `<h2>${lead.heading}</h2>\n<p>${lead.action}</p>\n` +
      `<p><a href="${link}">${lead.label}</a></p>\n` +
      `<p>Alternatively, enter the code: ${input.code}</p>\n`,
    text: `${lead.heading}\n\n${lead.action}\n${input.link}\n\nAlternatively, enter the code: ${input.code}\n`,
  };
}
