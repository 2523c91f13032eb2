// The game page's chat between the two players (GET/POST /api/games/{id}/chat), as lichess's:
// the messages kept, the new ones read when the live stream announces them.

import { BASE, call } from './api.js';
import { esc } from './panels.js';

/** Escaped chat text with this server's game links (a rematch's invitation) made links; no
 * other address is. */
function linked(text) {
  const origin = (location.origin + BASE).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${origin}/game/[0-9a-f]+(\\?invite=[0-9a-f]+)?`, 'g'), url => `<a href="${url}">${url}</a>`);
}

export class Chat {
  /**
   * The chat of game `id`, built in `section`, for the player holding `seat` ({color, token}).
   * `snowfall`: a SnowFall game's percentage, said first (the seed: "These SnowFall
   * probabilities can be viewed in the chat").
   */
  constructor(section, id, seat, snowfall) {
    this.id = id;
    this.seat = seat;
    this.messages = [];
    this.system = snowfall == null ? null : `SnowFall for this game: ${snowfall} % (the chance of a gift event after every move).`;
    section.innerHTML = `<h2>Chat</h2>
      <ol class="chat" aria-live="polite"></ol>
      <form class="chat-form">
        <input id="chat-text" autocomplete="off" placeholder="Write to your opponent" aria-label="chat message">
        <button type="submit">Send</button>
      </form>
      <p class="error" id="chat-error" role="alert"></p>`;
    this.list = section.querySelector('ol.chat');
    const input = section.querySelector('#chat-text');
    const error = section.querySelector('#chat-error');
    section.querySelector('form').addEventListener('submit', async ev => {
      ev.preventDefault();
      if (!input.value.trim()) return;
      error.textContent = '';
      try {
        await call('POST', `/api/games/${id}/chat`, { text: input.value }, seat.token);
        input.value = '';
      } catch (e) {
        error.textContent = e.message;
      }
      this.load();
    });
    this.loading = false;
    this.again = false;
    // Messages from the opponent that came while the chat was out of sight (below the board
    // on a phone): a button at the foot of the window says so and scrolls to them.
    this.loaded = false;
    this.inView = true;
    this.unread = 0;
    this.badge = document.createElement('button');
    this.badge.type = 'button';
    this.badge.className = 'chat-unread';
    this.badge.hidden = true;
    this.badge.addEventListener('click', () => {
      section.scrollIntoView({ block: 'end' });
      this.markRead();
      input.focus({ preventScroll: true });
    });
    section.append(this.badge);
    if (typeof IntersectionObserver === 'function') {
      new IntersectionObserver(entries => {
        this.inView = entries.some(e => e.isIntersecting);
        if (this.inView) this.markRead();
      }).observe(section);
    }
    this.render();
    this.load();
  }

  markRead() {
    this.unread = 0;
    this.badge.hidden = true;
  }

  /** Reads the messages after the last one shown (one request at a time; one asked for
   * meanwhile runs after it). */
  async load() {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      do {
        this.again = false;
        const after = this.messages.length ? this.messages[this.messages.length - 1].seq : 0;
        const r = await call('GET', `/api/games/${this.id}/chat?after=${after}`, undefined, this.seat.token);
        const fresh = r.messages.filter(m => m.seq > after);
        this.messages.push(...fresh);
        this.render();
        // The messages there when the page opened are not news.
        const theirs = fresh.filter(m => m.by !== this.seat.color).length;
        if (this.loaded && theirs && !this.inView) {
          this.unread += theirs;
          this.badge.textContent = `${this.unread} new chat message${this.unread === 1 ? '' : 's'} ↓`;
          this.badge.hidden = false;
        }
        this.loaded = true;
      } while (this.again);
    } catch {
      /* read again at the next announcement or reconnection */
    } finally {
      this.loading = false;
    }
  }

  render() {
    const lines = this.system ? [`<li class="system">${esc(this.system)}</li>`] : [];
    for (const m of this.messages) {
      const mine = m.by === this.seat.color;
      const who = mine ? 'You' : m.by === 'white' ? 'White' : 'Black';
      lines.push(`<li class="${mine ? 'mine' : 'theirs'}" data-seq="${m.seq}"><b>${who}</b> ${linked(esc(m.text))}</li>`);
    }
    this.list.innerHTML = lines.join('');
    this.list.scrollTop = this.list.scrollHeight;
  }
}
