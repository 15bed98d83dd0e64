// Telegram's side of the game page (window.gamePage for page.js): the Mini App's init data
// proves the player to the bot; the game comes as the link's start parameter; the page takes
// Telegram's theme colours (light and dark) as they change.
'use strict';

(function () {
  const app = () => window.Telegram && window.Telegram.WebApp;
  const COLOURS = {
    bg_color: '--bg', secondary_bg_color: '--surface', text_color: '--text',
    hint_color: '--hint', button_color: '--accent', button_text_color: '--accent-text',
  };

  function theme() {
    const tg = app();
    const root = document.documentElement;
    const params = tg.themeParams || {};
    for (const [name, variable] of Object.entries(COLOURS)) {
      if (/^#[0-9a-fA-F]{3,8}$/.test(params[name] || '')) root.style.setProperty(variable, params[name]);
    }
    if (tg.colorScheme === 'dark' || tg.colorScheme === 'light') root.dataset.scheme = tg.colorScheme;
  }

  window.gamePage = {
    init: async () => {
      const tg = app();
      if (!tg || !tg.initData) throw new Error('Telegram?');
      tg.ready();
      if (tg.expand) tg.expand();
      theme();
      if (tg.onEvent) tg.onEvent('themeChanged', theme);
    },
    game: () => (app().initDataUnsafe || {}).start_param ||
      new URLSearchParams(location.search).get('tgWebAppStartParam'),
    auth: () => 'tma ' + app().initData,
    canPost: () => false,
  };
})();
