import { emailTemplatesProblem, renderEmail, unknownPlaceholders } from '../src/domain/email-templates';
import { buildLink, environmentOfLinkToken, linkBaseOf, newLinkToken } from '../src/use-cases/email/link-tokens';
import { cryptoRandom } from '../src/ports/random';
import { projectFixture } from '../src/testing/storage-fixture';

const values = { link: 'https://app.test/m?a=1&token=t', projectName: 'Shop "<b>"', expiresInMinutes: 15 };

describe('renderEmail', () => {
  it('renders the defaults with every placeholder filled; html values escaped, text values not', () => {
    const mail = renderEmail('magic_link', null, values);
    expect(mail.subject).toBe('Your sign-in link for Shop "<b>"');
    expect(mail.text).toContain('https://app.test/m?a=1&token=t');
    expect(mail.text).toContain('expires in 15 minutes');
    expect(mail.html).toContain('href="https://app.test/m?a=1&amp;token=t"');
    expect(mail.html).toContain('Shop &quot;&lt;b&gt;&quot;');
    expect(`${mail.subject}${mail.text}${mail.html}`).not.toMatch(/\{\{/);
  });

  it('takes overrides part by part and keeps subjects on one line', () => {
    const mail = renderEmail('password_reset', { passwordReset: { subject: 'Reset\r\nBcc: x@evil.test {{projectName}}' }, magicLink: { text: 'no' } }, values);
    expect(mail.subject).toBe('Reset Bcc: x@evil.test Shop "<b>"');
    expect(mail.text).toContain('reset the password');
  });

  it('does not expand placeholders inside values, nor prototype names', () => {
    const mail = renderEmail('magic_link', { magicLink: { text: '{{link}} {{constructor}}' } }, { ...values, projectName: '{{link}}' });
    expect(mail.text).toBe('https://app.test/m?a=1&token=t {{constructor}}');
    expect(renderEmail('magic_link', null, { ...values, projectName: '{{link}}' }).subject).toBe('Your sign-in link for {{link}}');
  });

  it('finds unusable overrides', () => {
    expect(unknownPlaceholders('{{ link }} {{linkk}} {{projectName}}')).toEqual(['linkk']);
    expect(emailTemplatesProblem({ magicLink: { text: 'no link here' } })).toMatch(/must contain \{\{link\}\}/);
    expect(emailTemplatesProblem({ passwordReset: { subject: '{{user}}' } })).toMatch(/unknown placeholder \{\{user\}\}/);
    expect(emailTemplatesProblem({ magicLink: { subject: 'Hi', text: '{{ link }}', html: '<a href="{{link}}">x</a>' } })).toBeNull();
  });
});

describe('link tokens and links', () => {
  it('marks the environment and the kind, and reads them back', () => {
    const live = newLinkToken(cryptoRandom, 'magic_link', 'production');
    const sandbox = newLinkToken(cryptoRandom, 'magic_link', 'sandbox');
    expect(live).toMatch(/^ml_live_[A-Za-z0-9_-]{43}$/);
    expect(environmentOfLinkToken(live, 'magic_link')).toBe('production');
    expect(environmentOfLinkToken(sandbox, 'magic_link')).toBe('sandbox');
    expect(environmentOfLinkToken(live, 'password_reset')).toBeNull();
    expect(environmentOfLinkToken(`${live}x`, 'magic_link')).toBeNull();
    expect(environmentOfLinkToken('ml_prod_abc', 'magic_link')).toBeNull();
    expect(newLinkToken(cryptoRandom, 'password_reset', 'production')).toMatch(/^pr_live_/);
  });

  it('builds links with the URL API, keeping the base query and replacing ours', () => {
    expect(buildLink('https://app.test/cb?next=%2Fhome&token=old#x', 'ml_live_t', 'p1')).toBe('https://app.test/cb?next=%2Fhome&token=ml_live_t&project=p1#x');
    expect(buildLink('http://localhost:5173/magic', 'a b&c', 'p')).toBe('http://localhost:5173/magic?token=a+b%26c&project=p');
  });

  it('refuses to build a link for a project without the setting, naming it', () => {
    expect(() => linkBaseOf(projectFixture(), 'password_reset')).toThrow(/passwordResetUrl/);
    expect(linkBaseOf(projectFixture({ magicLinkUrl: 'https://a.test/m' }), 'magic_link')).toBe('https://a.test/m');
  });
});
