// The tests' stand-in for LINE's LIFF SDK: the few calls the hand page makes. Who is logged in
// and where the page was opened come from `window.__liffTest` ({idToken, chat, context,
// refuse}), set by the test before the page loads; `sendMessages` asks the fake LINE server
// that served this file to post the messages in the group as the user (a webhook event).
'use strict';
(function () {
  const test = window.__liffTest || {};
  const server = new URL(document.currentScript.src).origin;
  window.liff = {
    init: async (config) => {
      if (!config || !config.liffId) throw new Error('liff.init: no liffId');
      test.liffId = config.liffId;
    },
    isLoggedIn: () => Boolean(test.idToken),
    login: () => { throw new Error('liff.login: not in the tests'); },
    getIDToken: () => test.idToken || null,
    getContext: () => ({ type: test.context || 'external' }),
    sendMessages: async (messages) => {
      if (test.refuse) throw new Error('sendMessages: the scope chat_message.write was refused');
      const response = await fetch(server + '/liff-test/send', {
        method: 'POST',
        body: JSON.stringify({ idToken: test.idToken, chat: test.chat, messages }),
      });
      if (!response.ok) throw new Error('sendMessages: ' + response.status);
    },
  };
})();
