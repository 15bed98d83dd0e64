// The tests' stand-in for Telegram's telegram-web-app.js: the few parts of Telegram.WebApp the
// game page uses. The init data (signed by the test with the bot's token), the start parameter,
// the theme and the colour scheme come from `window.__telegramTest`, set before the page loads.
'use strict';
(function () {
  const test = window.__telegramTest || {};
  window.Telegram = {
    WebApp: {
      initData: test.initData || '',
      initDataUnsafe: { start_param: test.startParam, user: test.user },
      themeParams: test.theme || {},
      colorScheme: test.scheme || 'light',
      ready: () => {},
      expand: () => {},
      onEvent: () => {},
    },
  };
})();
