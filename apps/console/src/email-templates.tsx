import { useState } from 'preact/hooks';
import { renderEmail, type EmailTemplates } from '@svc/core/email-templates';
import { api, type Project } from './api';
import { Alert, Card, Field, useAction } from './ui';

type Part = 'subject' | 'text' | 'html';
const KINDS = [
  ['magicLink', 'magic_link', 'Magic link'],
  ['passwordReset', 'password_reset', 'Password reset'],
] as const;

/**
 * The project's mail templates with a live preview, rendered by core's `renderEmail` (the same
 * code the service sends with), over a sample link. Empty parts fall back to the defaults.
 */
export function EmailTemplatesCard({ project, onChange }: { project: Project; onChange(p: Project): void }) {
  const initial = (project.emailTemplates as EmailTemplates | null) ?? {};
  const [templates, setTemplates] = useState<EmailTemplates>(initial);
  const [kind, setKind] = useState<(typeof KINDS)[number][0]>('magicLink');
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const mail = KINDS.find(([key]) => key === kind)!;
  const current = templates[kind] ?? {};
  const set = (part: Part, value: string) => {
    const next = { ...current, [part]: value };
    if (!value) delete next[part];
    setTemplates({ ...templates, [kind]: next });
  };
  const preview = renderEmail(mail[1], templates, { link: `https://app.example.com/${kind === 'magicLink' ? 'magic' : 'reset'}?token=sample&project=${project.id}`, projectName: project.name, expiresInMinutes: kind === 'magicLink' ? 15 : 60 });
  return (
    <Card title="E-mail templates">
      <div class="toolbar" role="group" aria-label="Template">
        {KINDS.map(([key, , label]) => (
          <button key={key} type="button" class={key === kind ? 'button button-primary' : 'button'} aria-pressed={key === kind} onClick={() => setKind(key)}>
            {label}
          </button>
        ))}
      </div>
      <p class="muted">
        Placeholders: <code>{'{{link}}'}</code>, <code>{'{{projectName}}'}</code>, <code>{'{{expiresInMinutes}}'}</code>. Leave a part empty for the default.
      </p>
      <div class="template-grid">
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(false);
            void save.run(async () => {
              onChange((await api.updateProject(project.id, { emailTemplates: templates })).project);
              setSaved(true);
            });
          }}
        >
          <Field id="t-subject" label="Subject">
            <input id="t-subject" value={current.subject ?? ''} onInput={(e) => set('subject', e.currentTarget.value)} />
          </Field>
          <Field id="t-text" label="Text">
            <textarea id="t-text" class="code" rows={6} value={current.text ?? ''} onInput={(e) => set('text', e.currentTarget.value)} />
          </Field>
          <Field id="t-html" label="HTML">
            <textarea id="t-html" class="code" rows={6} value={current.html ?? ''} onInput={(e) => set('html', e.currentTarget.value)} />
          </Field>
          <div>
            <button class="button button-primary" type="submit" disabled={save.busy}>
              Save templates
            </button>
          </div>
          {save.error ? <Alert>{save.error}</Alert> : null}
          {saved ? <Alert tone="success">Templates saved.</Alert> : null}
        </form>
        <section class="preview" aria-label="Preview">
          <p class="preview-subject" data-testid="preview-subject">
            {preview.subject}
          </p>
          <iframe title="HTML preview" sandbox="" srcDoc={preview.html} class="preview-html" />
          <pre class="preview-text" tabIndex={0} aria-label="Text preview">
            {preview.text}
          </pre>
        </section>
      </div>
    </Card>
  );
}
