import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import type { Card } from '../../../src/shared/talkie/content';
import { openDemo, push, send, transcript } from './chat-helpers';
import { createFakeBackend, demoView } from './fake-api';

async function streamed(text: string, options: { issuer?: string } = {}) {
  const backend = createFakeBackend();
  if (options.issuer) backend.state.talkie.views[builtInDemoAgentId] = demoView({ issuer: options.issuer });
  const app = await openDemo(backend);
  const runKey = await send(app.user, backend, 'show me');
  await push(
    backend,
    runKey,
    { type: 'run.started', threadId: 't-1', runId: runKey },
    { type: 'text.start', messageId: 'm' },
    { type: 'text.delta', messageId: 'm', delta: text },
    { type: 'text.end', messageId: 'm' },
  );
  const message = document.querySelector<HTMLElement>('.message--assistant');
  if (!message) throw new Error('no assistant message');
  return { ...app, backend, runKey, message };
}

async function withCard(card: Card) {
  const backend = createFakeBackend();
  const app = await openDemo(backend);
  const runKey = await send(app.user, backend, 'card please');
  await push(backend, runKey, { type: 'run.started', threadId: 't-1', runId: runKey }, { type: 'card', card });
  return { ...app, backend, runKey };
}

describe('chat: Markdown (Talkie 1 §7)', () => {
  it('renders the Markdown subset', async () => {
    const { message } = await streamed('Some **bold**, *italic* and `code`.\n\n- one\n- two');
    expect(message.querySelector('strong')?.textContent).toBe('bold');
    expect(message.querySelector('em')?.textContent).toBe('italic');
    expect(message.querySelector('code')?.textContent).toBe('code');
    expect(message.querySelectorAll('li')).toHaveLength(2);
  });

  it('shows raw HTML as literal text and creates no script or img element', async () => {
    const { message } = await streamed('Look: <script>alert(1)</script> and <img src=x onerror="alert(2)"> done\n\n<b>bold?</b>');
    expect(message.textContent).toContain('<script>alert(1)</script>');
    expect(message.textContent).toContain('<img src=x onerror="alert(2)">');
    expect(message.textContent).toContain('<b>bold?</b>');
    expect(document.querySelector('.transcript script')).toBeNull();
    expect(document.querySelector('.transcript img')).toBeNull();
    expect(message.querySelector('b')).toBeNull();
  });

  it('drops Markdown images', async () => {
    const { message } = await streamed('Before ![tracker](https://evil.example/pixel.png) after');
    expect(message.querySelector('img')).toBeNull();
    expect(message.textContent).toContain('Before');
    expect(message.textContent).toContain('after');
  });

  it('does not make javascript: or data: links clickable', async () => {
    const { message } = await streamed('[click me](javascript:alert(1)) and [data](data:text/html,hi)');
    expect(within(message).queryByRole('link')).toBeNull();
    expect(within(message.querySelector<HTMLElement>('.markdown') ?? message).queryByRole('button')).toBeNull();
    expect(message.querySelector('a')).toBeNull();
    expect(message.textContent).toContain('click me');
    expect(message.textContent).toContain('data');
  });

  it('opens an https link with external.open on click and never navigates the page', async () => {
    const { message, user, backend } = await streamed('See [the docs](https://docs.example.com/guide).');
    const link = within(message).getByRole('link', { name: /the docs/ });
    expect(link.getAttribute('href')).toBe('https://docs.example.com/guide');
    expect(backend.callsOf('external.open')).toEqual([]);
    let prevented: boolean | undefined;
    const listener = (event: MouseEvent) => {
      prevented = event.defaultPrevented;
    };
    document.addEventListener('click', listener);
    await user.click(link);
    document.removeEventListener('click', listener);
    expect(prevented).toBe(true);
    expect(backend.callsOf('external.open')).toEqual([{ url: 'https://docs.example.com/guide' }]);
  });

  it('opens links by keyboard too', async () => {
    const { message, user, backend } = await streamed('[Portal](https://portal.example.com/)');
    within(message)
      .getByRole('link', { name: /Portal/ })
      .focus();
    await user.keyboard('{Enter}');
    expect(backend.callsOf('external.open')).toEqual([{ url: 'https://portal.example.com/' }]);
  });

  it('shows a same-origin link of an http development server as text with a note', async () => {
    const { message } = await streamed('Open [the record](/?record=abc).');
    expect(within(message).queryByRole('link')).toBeNull();
    expect(message.textContent).toContain('http://127.0.0.1:41234/?record=abc');
    expect(message.textContent).toContain('AgentDesk opens only https:// links');
  });

  it('opens a same-origin link of an https server through external.open', async () => {
    const { message, user, backend } = await streamed('Open [the record](/?record=abc).', { issuer: 'https://crm.example.com' });
    await user.click(within(message).getByRole('link', { name: /the record/ }));
    expect(backend.callsOf('external.open')).toEqual([{ url: 'https://crm.example.com/?record=abc' }]);
  });

  it('shows why a link could not be opened', async () => {
    const { message, user, backend } = await streamed('[x](https://x.example/)');
    backend.failNext('external.open', { code: 'no_browser', message: 'No browser was found.' });
    await user.click(within(message).getByRole('link', { name: /x/ }));
    expect(await screen.findByText(/The link could not be opened\. No browser was found\./)).toBeTruthy();
  });
});

describe('chat: tools, cards and suggested links', () => {
  it('shows a tool status line: spinner while running, then ✓ or the error', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'search contacts');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'tool.start', toolCallId: 'c1', label: 'Searching contacts…' },
    );
    const line = transcript().getByText('Searching contacts…').closest('.tool-line') as HTMLElement;
    expect(line.querySelector('.spinner')).not.toBeNull();
    await push(backend, runKey, { type: 'tool.end', toolCallId: 'c1', ok: true });
    expect(line.querySelector('.spinner')).toBeNull();
    expect(line.textContent).toContain('✓');
    // Once done, the line reads as done (#26: not "✓ Searching contacts…" as if it were still going).
    expect(line.textContent).toContain('Finished searching contacts');
    expect(line.textContent).not.toContain('Searching contacts…');

    await push(
      backend,
      runKey,
      { type: 'tool.start', toolCallId: 'c2', label: 'Checking calendar…' },
      { type: 'tool.end', toolCallId: 'c2', ok: false, error: 'Calendar is offline' },
    );
    const failed = transcript().getByText('Failed: checking calendar').closest('.tool-line') as HTMLElement;
    expect(failed.textContent).toContain('✗');
    expect(failed.textContent).toContain('failed: Calendar is offline');
  });

  it('renders a card with every block type, named by its a11yLabel', async () => {
    const { user, backend } = await withCard({
      id: 'c1',
      title: 'Alfa s.r.o.',
      subtitle: 'Client · Brno',
      a11yLabel: 'Client card Alfa s.r.o.',
      fallbackText: 'Alfa s.r.o. – client in Brno',
      blocks: [
        { type: 'badge', text: 'Active', tone: 'positive' },
        { type: 'heading', text: 'Key facts' },
        {
          type: 'fields',
          fields: [
            { label: 'Company ID', value: '12345678' },
            { label: 'Turnover', value: '1.2 M CZK' },
          ],
        },
        { type: 'text', text: 'Last order **paid**. <b>raw</b>' },
        { type: 'list', items: [{ title: 'Meeting 10:00', subtitle: 'Novák', url: 'https://cal.example.com/1' }, { title: 'Call 14:00' }], more: 3 },
        { type: 'link', label: 'Open in CRM', url: 'https://crm.example.com/?record=abc' },
        { type: 'file', name: 'Offer N-2026-014.pdf', mime: 'application/pdf', size: 48211, url: '/api/files/123.pdf' },
        { type: 'file', name: 'Brochure.pdf', url: 'https://cdn.example.com/brochure.pdf' },
      ],
    });
    const card = screen.getByRole('article', { name: 'Client card Alfa s.r.o.' });
    const inCard = within(card);
    expect(inCard.getByRole('heading', { name: 'Alfa s.r.o.' })).toBeTruthy();
    expect(inCard.getByText('Client · Brno')).toBeTruthy();
    expect(inCard.getByText('Active').className).toContain('badge--positive');
    expect(inCard.getByRole('heading', { name: 'Key facts' })).toBeTruthy();
    const terms = card.querySelectorAll('dl dt');
    const values = card.querySelectorAll('dl dd');
    expect([...terms].map((term) => term.textContent)).toEqual(['Company ID', 'Turnover']);
    expect([...values].map((value) => value.textContent)).toEqual(['12345678', '1.2 M CZK']);
    expect(card.querySelector('strong')?.textContent).toBe('paid');
    expect(card.querySelector('b')).toBeNull();
    expect(inCard.getByText('+3 more')).toBeTruthy();
    expect(inCard.getByText('Novák')).toBeTruthy();
    expect(inCard.getByText('Offer N-2026-014.pdf')).toBeTruthy();
    expect(inCard.getByText('application/pdf · 48.2 kB')).toBeTruthy();
    // Same-origin files download through main (with the token), and the card says where they went.
    await user.click(inCard.getByRole('button', { name: 'Download Offer N-2026-014.pdf' }));
    expect(await inCard.findByText('Saved to /home/user/Downloads/Offer N-2026-014.pdf')).toBeTruthy();
    expect(backend.callsOf('talkie.download')).toEqual([expect.objectContaining({ url: '/api/files/123.pdf', name: 'Offer N-2026-014.pdf' })]);
    expect(card.textContent).not.toContain('Alfa s.r.o. – client in Brno');

    await user.click(inCard.getByRole('link', { name: /Open in CRM/ }));
    await user.click(inCard.getByRole('button', { name: 'Open Brochure.pdf in your browser' }));
    await user.click(inCard.getByRole('link', { name: /Meeting 10:00/ }));
    expect(backend.callsOf('external.open')).toEqual([
      { url: 'https://crm.example.com/?record=abc' },
      { url: 'https://cdn.example.com/brochure.pdf' },
      { url: 'https://cal.example.com/1' },
    ]);
  });

  it('shows fallbackText for a card whose blocks could not be rendered', async () => {
    await withCard({ id: 'c2', title: 'Chart', fallbackText: 'Revenue grew 12 % this quarter.' });
    const card = screen.getByRole('article', { name: 'Chart' });
    expect(within(card).getByText('Revenue grew 12 % this quarter.')).toBeTruthy();
  });

  it('shows a talkie.open link as a suggestion that opens only on click', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'open');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'open', url: 'https://example.com/report', label: 'Monthly report' },
    );
    const chip = transcript().getByRole('link', { name: /Monthly report/ });
    await waitFor(() => expect(backend.callsOf('external.open')).toEqual([]));
    await user.click(chip);
    expect(backend.callsOf('external.open')).toEqual([{ url: 'https://example.com/report' }]);
  });
});
