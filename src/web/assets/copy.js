/* Copy buttons: <button data-copy="#input-id">. Uses the clipboard when the page may, else selects
   the text so the keyboard shortcut copies it. */
document.addEventListener('click', function (e) {
  var button = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
  if (!button) return;
  var input = document.querySelector(button.getAttribute('data-copy'));
  if (!input) return;
  var label = button.textContent;
  function done(text) {
    button.textContent = text;
    setTimeout(function () { button.textContent = label; }, 2000);
  }
  function fallback() {
    input.focus();
    input.select();
    done('Press Ctrl+C');
  }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(function () { done('Copied'); }, fallback);
  } else {
    fallback();
  }
});
