// The settings pages work without JavaScript; this file only adds the copy button for a new
// key, and keeps a one-time key from coming back through the browser's back/forward cache.
(function () {
  'use strict';

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.querySelectorAll('[data-copy-target]').forEach(function (button) {
    var target = document.getElementById(button.getAttribute('data-copy-target'));
    var status = button.parentElement.querySelector('[data-copy-status]');
    if (!target) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = target.textContent.trim();
      function done(message) {
        if (status) status.textContent = message;
      }
      function fallback() {
        selectText(target);
        var copied = false;
        try {
          copied = document.execCommand('copy');
        } catch (e) {
          copied = false;
        }
        done(copied ? 'Copied' : 'Selected: press Ctrl+C (⌘C) to copy');
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done('Copied'); }, fallback);
      } else {
        fallback();
      }
    });
  });

  // A page with a one-time key must not be shown again: blank it when leaving, and if the
  // browser restores it from its back/forward cache anyway, ask the server, which has
  // already forgotten the key and sends the keys list instead.
  if (document.querySelector('[data-one-time]')) {
    window.addEventListener('pagehide', function () {
      document.querySelectorAll('[data-secret]').forEach(function (element) { element.textContent = ''; });
    });
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) window.location.reload();
    });
  }
})();
