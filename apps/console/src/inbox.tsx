import { useState } from 'preact/hooks';
import { api, type Mail, type Project } from './api';
import { Alert, Badge, Card, DataTable, useAction, useLoad, when } from './ui';

/** Mails the Sandbox sent to one address, with their links, and the project's dead letters. */
export function Inbox({ project }: { project: Project }) {
  const [email, setEmail] = useState('');
  const [mails, setMails] = useState<Mail[] | null>(null);
  const look = useAction();
  const dead = useLoad(() => api.deadMail(project.id), [project.id]);
  return (
    <div class="stack">
      <Card title="Sandbox inbox">
        <p class="muted">Mails sent by the Sandbox environment, as the recipient would get them. Production mail is never shown: its links are live credentials.</p>
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void look.run(async () => setMails((await api.sandboxMail(project.id, email.trim())).mails));
          }}
        >
          <label for="inbox-email">Recipient</label>
          <input id="inbox-email" type="email" required placeholder="ada@example.com" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button class="button button-primary" type="submit" disabled={look.busy}>
            Open inbox
          </button>
        </form>
        {look.error ? <Alert>{look.error}</Alert> : null}
        {mails && mails.length === 0 ? <p class="empty">No mail to this address.</p> : null}
        <ul class="mail-list">
          {mails?.map((mail) => (
            <li key={mail.id} class="mail">
              <article aria-label={mail.subject ?? mail.template}>
                <header>
                  <h3>{mail.subject ?? mail.template}</h3>
                  <p class="muted">
                    To {mail.to} · {when(mail.createdAt)} · <Badge tone={mail.status === 'sent' ? 'good' : mail.status === 'dead' ? 'bad' : 'warn'}>{mail.status}</Badge>
                  </p>
                </header>
                {mail.links && mail.links.length ? (
                  <ul class="links">
                    {mail.links.map((link) => (
                      <li key={link}>
                        <a href={link} target="_blank" rel="noopener noreferrer">
                          {link}
                        </a>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p class="muted">No links in this mail.</p>
                )}
              </article>
            </li>
          ))}
        </ul>
      </Card>
      <Card title="Dead letters">
        {dead.error ? <Alert>{dead.error}</Alert> : null}
        <DataTable
          caption="Dead letters"
          headers={['To', 'Mail', 'Attempts', 'Last error']}
          empty="No dead letters."
          rows={dead.data?.mails.map((m) => (
            <tr key={m.id}>
              <td>{m.to}</td>
              <td>{m.template}</td>
              <td>{m.attempts}</td>
              <td>{m.lastError ?? '—'}</td>
            </tr>
          ))}
        />
      </Card>
    </div>
  );
}
