// The game page: a card table drawn from the bot's JSON (<api>/state), for any game and any
// platform. The platform's script (window.gamePage: init, game, auth, tell) proves who is
// asking; every word comes from the server in the player's language. The page learns of
// moves from the server's event stream (EventSource), and looks again now and then when the
// stream is down. No build step, no library.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const api = document.body.dataset.api;
  const platform = window.gamePage;
  const LOOK_EVERY = 5000; // ms between looks while the live stream is down
  const state = {
    data: null, words: {}, game: null, picked: [], chosen: null, busy: false,
    lock: null, version: null, stream: null, heard: true, stale: false,
  };

  // --- talking to the server -------------------------------------------------------------

  async function call(path, payload) {
    const options = { headers: { Authorization: platform.auth() } };
    if (payload) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(payload);
    }
    const response = await fetch(api + path, options);
    let body = {};
    try { body = await response.json(); } catch (e) { body = {}; }
    return { ok: response.ok, body };
  }

  function stateQuery() {
    let query = '/state?game=' + encodeURIComponent(state.game || '');
    if (state.lock) query += '&lock=' + encodeURIComponent(state.lock);
    return query;
  }

  async function load(quiet) {
    if (!quiet) working(true);
    try {
      const got = await call(stateQuery());
      if (got.ok) {
        render(got.body);
        if (!quiet) say('');
      } else {
        if (got.body.words) state.words = got.body.words;
        say(got.body.error || state.words.failed, true);
      }
    } catch (e) {
      say(state.words.failed || String(e), true);
    } finally {
      if (!quiet) working(false);
    }
  }

  function listen() {
    if (!window.EventSource || state.stream) return;
    const url = api + '/events?game=' + encodeURIComponent(state.game) +
      '&auth=' + encodeURIComponent(platform.auth());
    const stream = new EventSource(url);
    state.stream = stream;
    stream.onmessage = () => { // the game was saved (by any process): read it again
      if (state.busy) state.stale = true;
      else load(true);
    };
    stream.onerror = () => {
      if (stream.readyState === EventSource.CLOSED) state.stream = null;
    };
    stream.onopen = () => { // (again after the server ended it: what was saved meanwhile)
      if (state.data && !state.busy) load(true);
    };
  }

  // While the stream is down (a proxy that buffers, a lost connection), look again quietly.
  function look() {
    const live = state.stream && state.stream.readyState === EventSource.OPEN;
    if (!live && !state.busy && document.visibilityState === 'visible' && state.data &&
        !state.data.over) {
      load(true);
    }
    if (!state.stream && !(state.data && state.data.over)) listen();
    setTimeout(look, LOOK_EVERY);
  }

  // --- drawing ---------------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function drawCard(card, tag) {
    const node = el(tag || 'div', 'card face-' + card.face + (card.tone ? ' tone-' + card.tone : ''));
    if (card.face === 'pip' || card.face === 'joker') {
      const mark = card.face === 'joker' ? '' : card.suit;
      for (const corner of ['tl', 'br']) {
        const c = el('span', 'corner ' + corner);
        c.appendChild(el('span', 'rank', card.rank));
        if (mark) c.appendChild(el('span', 'suit', mark));
        node.appendChild(c);
      }
      node.appendChild(el('span', 'pip', card.face === 'joker' ? '🃏' : card.suit));
      node.setAttribute('aria-label', card.face === 'joker' ? 'Joker' : card.rank + card.suit);
    } else if (card.face === 'topic') {
      node.appendChild(el('span', 'sign', card.sign));
      node.appendChild(el('span', 'number', card.number));
      node.appendChild(el('span', 'name', card.name));
      node.setAttribute('aria-label', card.name + ' ' + card.number);
    } else if (card.face === 'question') {
      node.appendChild(el('p', 'question-text', card.text));
      const list = el('ol', 'answers');
      card.answers.forEach((answer, i) => {
        const item = el('li', 'answer' + (card.picked === i + 1 ? ' picked' : ''));
        item.appendChild(el('span', 'digit', String(i + 1)));
        item.appendChild(el('span', 'answer-text', answer));
        item.dataset.answer = String(i + 1);
        list.appendChild(item);
      });
      node.appendChild(list);
    } else {
      node.setAttribute('aria-hidden', 'true');
    }
    return node;
  }

  function chips(n) {
    const row = el('div', 'chips');
    for (let i = 0; i < Math.min(n, 10); i++) row.appendChild(el('span', 'chip'));
    if (n > 10) row.appendChild(el('span', 'chip-more', '+' + (n - 10)));
    row.setAttribute('aria-hidden', 'true');
    return row;
  }

  // The keys of the picked cards, sorted (a multiset: two decks hold equal cards).
  function pickedKeys() {
    return state.picked.map((i) => state.data.hand[i].key).sort();
  }

  function sameKeys(a, b) {
    if (a.length !== b.length) return false;
    const x = [...a].sort();
    const y = [...b].sort();
    return x.every((k, i) => k === y[i]);
  }

  // Whether `keys` (a multiset) fit inside a choice's cards.
  function within(keys, cards) {
    const left = [...cards];
    for (const k of keys) {
      const at = left.indexOf(k);
      if (at < 0) return false;
      left.splice(at, 1);
    }
    return true;
  }

  function matching() {
    const keys = pickedKeys();
    return state.data.choices.filter((c) => sameKeys(c.cards, keys));
  }

  function render(data) {
    const before = state.data;
    if (before && !before.over && !data.over && before.version > data.version) {
      return; // an older answer that arrived late (two looks crossed): the page is newer
    }
    state.data = data;
    if (data.words) state.words = data.words;
    const words = state.words;
    $('title').textContent = data.title || '🃏';
    $('rules-open').textContent = words.rules || '📖';
    $('rules-open').hidden = !data.rules;
    $('rules-title').textContent = words.rules || '';
    $('rules-close').textContent = words.close || '×';
    drawRules(data.rules || []);
    if (data.over) {
      drawOver(data);
      return;
    }
    state.lock = data.lock;
    state.version = data.version;
    document.body.dataset.version = String(data.version);
    if (!before || before.version !== data.version || before.seat !== data.seat) {
      state.picked = [];
      state.chosen = null;
      if (before && !state.busy) say(''); // what was said is about a game that moved on
    }
    drawSeats(data);
    drawAreas(data);
    drawHand(data);
    drawChoices();
    drawLog(data.log || []);
    $('options').textContent = data.options || '';
  }

  function drawSeats(data) {
    const seats = $('seats');
    seats.textContent = '';
    for (const seat of data.seats) {
      const item = el('li', 'seat' + (seat.turn ? ' turn' : '') + (seat.me ? ' me' : ''));
      item.appendChild(el('span', 'seat-name', seat.name));
      item.appendChild(el('span', 'seat-note', seat.note));
      if (seat.turn) item.setAttribute('aria-current', 'true');
      seats.appendChild(item);
    }
  }

  function drawAreas(data) {
    const areas = $('areas');
    areas.textContent = '';
    for (const area of data.areas) {
      const box = el('div', 'area');
      box.dataset.area = area.id;
      box.appendChild(el('h2', 'area-title', area.title));
      const row = el('div', 'area-cards');
      for (const card of area.cards) row.appendChild(drawCard(card));
      box.appendChild(row);
      if (area.chips) box.appendChild(chips(area.chips));
      if (area.note) box.appendChild(el('p', 'area-note', area.note));
      areas.appendChild(box);
    }
  }

  function drawHand(data) {
    const hand = $('hand');
    hand.textContent = '';
    hand.hidden = data.seat === null || data.seat === undefined || !data.hand.length;
    const keys = pickedKeys();
    data.hand.forEach((card, i) => {
      const button = drawCard(card, 'button');
      button.type = 'button';
      button.dataset.key = card.key;
      const picked = state.picked.includes(i);
      const fits = picked || data.choices.some((c) => within([...keys, card.key], c.cards));
      button.classList.toggle('picked', picked);
      button.classList.toggle('lit', fits && data.choices.length > 0);
      button.classList.toggle('dim', !fits);
      button.setAttribute('aria-pressed', picked ? 'true' : 'false');
      button.disabled = !fits || state.busy;
      button.addEventListener('click', () => pick(i));
      hand.appendChild(button);
    });
  }

  function drawChoices() {
    const data = state.data;
    const box = $('choices');
    box.textContent = '';
    const offered = matching();
    if (offered.length === 1) state.chosen = offered[0].act;
    if (!offered.some((c) => c.act === state.chosen)) state.chosen = null;
    for (const choice of data.choices) {
      if (!offered.includes(choice) && choice.cards.length) continue; // shown once picked
      const button = el('button', 'choice', choice.label);
      button.type = 'button';
      button.dataset.act = choice.act;
      const lit = offered.includes(choice);
      button.classList.toggle('dim', !lit);
      button.classList.toggle('chosen', choice.act === state.chosen);
      button.setAttribute('aria-pressed', choice.act === state.chosen ? 'true' : 'false');
      button.disabled = !lit || state.busy;
      button.addEventListener('click', () => choose(choice.act));
      box.appendChild(button);
    }
    for (const area of document.querySelectorAll('.area')) {
      const lit = offered.some((c) => c.area === area.dataset.area && c.act === state.chosen);
      area.classList.toggle('target', lit);
    }
    const chosen = data.choices.find((c) => c.act === state.chosen);
    const primary = $('primary');
    primary.textContent = chosen ? '▶ ' + chosen.label : (state.words.play || '▶');
    primary.disabled = !chosen || state.busy;
    primary.hidden = data.seat === null || data.seat === undefined; // kept in place: no shift
    $('prompt').textContent = promptText(data);
  }

  function promptText(data) {
    const words = state.words;
    if (data.seat === null || data.seat === undefined) return words.watching || '';
    if (data.choices.length) {
      const mine = data.seats[data.seat] && data.seats[data.seat].turn;
      const head = mine ? words.turn || '' : words.chance || '';
      const withCards = data.choices.some((c) => c.cards.length);
      return withCards ? head + ' · ' + (words.pick || '') : head;
    }
    const awaited = data.seats.filter((s) => s.turn).map((s) => s.name);
    return (words.waiting || '{names}').replace('{names}', awaited.join(', '));
  }

  function drawLog(lines) {
    $('log-box').hidden = !lines.length;
    $('log-title').textContent = state.words.moves || '';
    const log = $('log');
    log.textContent = '';
    for (const line of lines) log.appendChild(el('li', '', line));
  }

  function drawRules(sections) {
    const body = $('rules-body');
    if (body.dataset.drawn === String(sections.length)) return;
    body.textContent = '';
    for (const section of sections) {
      const part = el('details', 'rule');
      part.appendChild(el('summary', '', section.title));
      part.appendChild(el('p', '', section.body));
      body.appendChild(part);
    }
    body.dataset.drawn = String(sections.length);
  }

  function drawOver(data) {
    document.body.dataset.over = 'true';
    for (const id of ['hand', 'choices', 'seats', 'areas', 'log-box', 'prompt', 'act']) {
      $(id).hidden = true;
    }
    say('');
    $('result').hidden = false;
    $('result-title').textContent = state.words.over || '';
    $('result-text').textContent = (data.result || []).join('\n\n');
    $('result-key').textContent = data.key || '';
    if (state.stream) {
      state.stream.close();
      state.stream = null;
    }
  }

  // --- moving ----------------------------------------------------------------------------

  function pick(i) {
    if (state.busy) return;
    const at = state.picked.indexOf(i);
    if (at >= 0) state.picked.splice(at, 1);
    else state.picked.push(i);
    state.chosen = null;
    drawHand(state.data);
    drawChoices();
  }

  function choose(act) {
    if (state.busy) return;
    state.chosen = act;
    drawChoices();
    $('primary').focus();
  }

  async function send() {
    const data = state.data;
    if (state.busy || !state.chosen || !data) return;
    const act = state.chosen;
    working(true, state.words.sending || '');
    say('');
    try {
      const got = await call('/move', { game: state.game, act, stamp: data.stamp, heard: state.heard });
      if (got.body.words) state.words = got.body.words;
      if (got.ok && (got.body.seats || got.body.over)) render(got.body);
      if (!got.ok) {
        say(got.body.error || state.words.failed, true);
        await load(true);
      } else if (got.body.moved) {
        const told = got.body.echo ? await tell(got.body.echo) : '';
        say([got.body.said, told].filter(Boolean).join('\n'), false);
      } else {
        say(got.body.said, !!got.body.said);
      }
    } catch (e) {
      say(state.words.failed || String(e), true);
    } finally {
      working(false);
      if (state.stale) {
        state.stale = false;
        load(true);
      }
    }
  }

  // The move is saved: where the platform lets the page post in the group as its player,
  // the page's line there is the move itself (the bot's free reply to it carries the table).
  async function tell(echo) {
    if (state.heard && platform.tell) {
      try {
        if (await platform.tell(echo)) return '';
      } catch (e) {
        // not allowed to post (the scope refused): the bot tells them
      }
      state.heard = false;
    }
    const got = await call('/unheard', { game: state.game });
    return got.body.said || got.body.error || state.words.unheard;
  }

  // --- the page around it ----------------------------------------------------------------

  function say(text, error) {
    const box = $('said');
    box.hidden = !text;
    box.textContent = text || '';
    box.classList.toggle('error', !!error);
  }

  function working(on, text) {
    state.busy = on;
    $('status').classList.toggle('idle', !on);
    if (!on) $('status-text').textContent = '';
    else if (text !== undefined) $('status-text').textContent = text;
    if (state.data && !state.data.over) {
      drawHand(state.data);
      drawChoices();
    }
  }

  async function start() {
    $('primary').addEventListener('click', send);
    $('rules-open').addEventListener('click', () => $('rules').showModal());
    $('rules-close').addEventListener('click', () => $('rules').close());
    try {
      await platform.init();
    } catch (e) {
      $('status').classList.add('idle');
      $('status-text').textContent = '';
      say(String(e), true);
      return;
    }
    state.game = platform.game();
    state.heard = platform.canPost ? platform.canPost() : false;
    await load(false);
    listen();
    setTimeout(look, LOOK_EVERY);
  }

  if (!platform) {
    $('status-text').textContent = 'gamePage?';
  } else {
    start();
  }
})();
