// The hand page (a LIFF app): the player's hand and moves from the bot's /liff/api, in the
// player's language (every word comes from the server). After a move is saved, the page
// posts a short message in the group (liff.sendMessages): the bot's free reply to it shows
// the group the move. No build step, no library but LINE's LIFF SDK.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const state = { words: {}, game: null, heard: false, busy: false, echo: '🃏', shown: '' };
  const LOOK_EVERY = 5000; // ms between quiet looks at the hand while it offers no move

  function gameOfUrl() {
    const query = new URLSearchParams(location.search);
    if (query.get('game')) return query.get('game');
    const inner = query.get('liff.state'); // before the SDK's second redirect
    if (!inner) return null;
    return new URLSearchParams(inner.slice(inner.indexOf('?') + 1)).get('game');
  }

  function status(text, working) {
    $('status').classList.toggle('idle', !working);
    $('status-text').textContent = text || '';
  }

  function say(text, error) {
    const box = $('said');
    box.hidden = !text;
    box.textContent = text || '';
    box.classList.toggle('error', !!error);
  }

  // The chat's text: a tiny HTML subset (<b>, <i>, <code>, escaped names), drawn as nodes.
  function richText(element, text) {
    element.textContent = '';
    const decode = (s) => s.replace(/&(lt|gt|quot|#x27|#39|amp);/g, (m, e) => (
      { lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'", amp: '&' }[e]));
    const stack = [element];
    for (const part of text.split(/(<\/?(?:b|i|code)>)/)) {
      const tag = /^<(\/?)(b|i|code)>$/.exec(part);
      if (!tag) {
        if (part) stack[stack.length - 1].appendChild(document.createTextNode(decode(part)));
      } else if (!tag[1]) {
        const node = document.createElement(tag[2] === 'i' ? 'em' : tag[2] === 'b' ? 'strong' : 'code');
        stack[stack.length - 1].appendChild(node);
        stack.push(node);
      } else if (stack.length > 1) {
        stack.pop();
      }
    }
  }

  function render(body) {
    if (body.words) state.words = body.words;
    if (body.echo) state.echo = body.echo;
    const words = state.words;
    $('title').textContent = words.title || '🃏';
    $('refresh').textContent = words.refresh || '🔄';
    $('refresh').hidden = false;
    if (body.hand === null || body.error) {
      $('hand').textContent = '';
      $('moves').textContent = '';
    } else if (body.hand) {
      state.shown = JSON.stringify(body.hand);
      richText($('hand'), body.hand.text);
      const moves = $('moves');
      moves.textContent = '';
      for (const row of body.hand.buttons) {
        const line = document.createElement('div');
        line.className = 'row';
        for (const button of row) {
          const element = document.createElement('button');
          element.type = 'button';
          element.textContent = button.label;
          element.dataset.move = button.data;
          element.addEventListener('click', () => press(button.data));
          line.appendChild(element);
        }
        moves.appendChild(line);
      }
    }
    if (typeof body.table === 'string') {
      $('table-title').textContent = words.table || '';
      $('table').textContent = body.table;
      $('table-box').hidden = false;
    }
  }

  function working(on) {
    state.busy = on;
    for (const button of document.querySelectorAll('button')) button.disabled = on;
  }

  async function call(path, payload) {
    const options = { headers: { Authorization: 'Bearer ' + liff.getIDToken() } };
    if (payload) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(payload);
    }
    const response = await fetch(path, options);
    let body = {};
    try { body = await response.json(); } catch (e) { body = {}; }
    return { ok: response.ok, body };
  }

  async function load() {
    working(true);
    status(state.words.title ? '' : $('status-text').textContent, true);
    try {
      const got = await call('/liff/api/hand?game=' + encodeURIComponent(state.game || ''));
      render(got.body);
      say(got.ok ? '' : got.body.error, !got.ok);
    } catch (e) {
      say(state.words.failed || String(e), true);
    } finally {
      working(false);
      status('', false);
    }
  }

  // While the hand offers no move (another's turn), look again now and then, quietly: the
  // player's choices appear when their turn comes.
  async function look() {
    const waiting = !document.querySelector('#moves button');
    if (waiting && !state.busy && state.game && document.visibilityState === 'visible') {
      try {
        const got = await call('/liff/api/hand?game=' + encodeURIComponent(state.game));
        if (got.ok && !state.busy && JSON.stringify(got.body.hand) !== state.shown) render(got.body);
      } catch (e) {
        // the next look tries again
      }
    }
    setTimeout(look, LOOK_EVERY);
  }

  async function press(data) {
    if (state.busy) return;
    working(true);
    say('');
    status(state.words.sending, true);
    try {
      const got = await call('/liff/api/move', { game: state.game, data, heard: state.heard });
      render(got.body);
      if (!got.ok) {
        say(got.body.error, true);
      } else if (got.body.moved) {
        say([got.body.said, await tell()].filter(Boolean).join('\n'), false);
      } else {
        say(got.body.said, !!got.body.said);
      }
    } catch (e) {
      say(state.words.failed || String(e), true);
    } finally {
      working(false);
      status('', false);
    }
  }

  // The move is saved: the group sees it with the bot's reply to the page's own message.
  async function tell() {
    if (state.heard) {
      try {
        await liff.sendMessages([{ type: 'text', text: state.echo }]);
        return state.words.posted;
      } catch (e) {
        state.heard = false; // not allowed to post (the scope refused): the bot tells them
      }
    }
    const got = await call('/liff/api/unheard', { game: state.game });
    return got.body.said || got.body.error || state.words.unheard;
  }

  async function start() {
    $('refresh').addEventListener('click', load);
    try {
      await liff.init({ liffId: document.body.dataset.liffId });
    } catch (e) {
      status('', false);
      say(String(e), true);
      return;
    }
    if (!liff.isLoggedIn()) {
      liff.login({ redirectUri: location.href });
      return;
    }
    state.game = gameOfUrl();
    const context = liff.getContext();
    state.heard = !!context && (context.type === 'group' || context.type === 'room');
    await load();
    if (!state.heard) say(state.words.unheard, false);
    setTimeout(look, LOOK_EVERY);
  }

  start();
})();
