// LINE's side of the game page (window.gamePage for page.js): the LIFF SDK logs the player
// in; its ID token proves them to the bot; after a move the page posts the move in the group
// as its player (liff.sendMessages), where the page was opened from a group.
'use strict';

(function () {
  const LIFF_ID = "{{liff_id}}";

  function gameOfUrl() {
    const query = new URLSearchParams(location.search);
    if (query.get('game')) return query.get('game');
    const inner = query.get('liff.state'); // before the SDK's second redirect
    if (!inner) return null;
    return new URLSearchParams(inner.slice(inner.indexOf('?') + 1)).get('game');
  }

  window.gamePage = {
    init: async () => {
      await liff.init({ liffId: LIFF_ID });
      if (!liff.isLoggedIn()) {
        liff.login({ redirectUri: location.href });
        throw new Error('…');
      }
    },
    game: gameOfUrl,
    auth: () => 'Bearer ' + liff.getIDToken(),
    canPost: () => {
      const context = liff.getContext();
      return !!context && (context.type === 'group' || context.type === 'room');
    },
    tell: async (text) => {
      await liff.sendMessages([{ type: 'text', text }]);
      return true;
    },
  };
})();
